#!/usr/bin/python3
# Builds src/modules/contributions/fonts/ (the fonts of printed receipts and statements) from
# Debian's packages: apt-get install fonts-noto-core fonts-noto-cjk python3-fonttools, then
#   /usr/bin/python3 scripts/fonts/build.py
# Each font is cut to the characters a letter needs, unhinted (fontkit's subsetter mishandles
# hinted glyphs), its glyphs padded to 4 bytes (fontkit may write short loca offsets), and the
# CJK one's CFF outlines made TrueType (fontkit subsets TrueType reliably, CID-keyed CFF not).
import os
from fontTools import subset
from fontTools.ttLib import TTFont, newTable
from fontTools.pens.cu2quPen import Cu2QuPen
from fontTools.pens.ttGlyphPen import TTGlyphPen

NOTO = '/usr/share/fonts/truetype/noto'
CJK = '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc'
OUT = os.path.join(os.path.dirname(__file__), '../../src/modules/contributions/fonts')
LATIN = 'U+0000-024F,U+0259,U+02B0-02FF,U+0300-036F,U+0370-03FF,U+0400-052F,U+1E00-1EFF,U+2000-206F,U+20A0-20CF,U+2100-214F,U+2190-2199,U+2212,U+FFFD'
ARABIC = 'U+0020-0040,U+00A0,U+0600-06FF,U+0750-077F,U+08A0-08FF,U+200C-200F,U+FB50-FDFF,U+FE70-FEFF'
HEBREW = 'U+0020-0040,U+00A0,U+0590-05FF,U+FB1D-FB4F'


def cjk_characters():
    """Symbols rows and level-1 ideographs of GB 2312 and JIS X 0208, every Hangul syllable of KS X 1001, kana, punctuation, full-width forms."""
    chars = set()
    for codec, rows in [('gb2312', [*range(0xA1, 0xAA), *range(0xB0, 0xD8)]), ('euc_jp', [*range(0xA1, 0xA9), *range(0xB0, 0xD0)]), ('euc_kr', [*range(0xA1, 0xAD), *range(0xB0, 0xC9)])]:
        for a in rows:
            for b in range(0xA1, 0xFF):
                try:
                    chars.update(bytes([a, b]).decode(codec))
                except UnicodeDecodeError:
                    pass
    for lo, hi in [(0x3000, 0x303F), (0x3040, 0x30FF), (0x3130, 0x318F), (0xFF00, 0xFFEF), (0x31F0, 0x31FF)]:
        chars.update(chr(c) for c in range(lo, hi + 1))
    return sorted(ord(c) for c in chars if ord(c) >= 0x2E80)


def cut(source, unicodes, target, font_number=0):
    options = subset.Options()
    options.layout_features = ['*']
    options.hinting = False
    options.font_number = font_number
    font = subset.load_font(source, options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=unicodes)
    subsetter.subset(font)
    return font


def to_truetype(font):
    order = font.getGlyphOrder()
    glyphs = font.getGlyphSet()
    glyf = newTable('glyf')
    glyf.glyphOrder = order
    glyf.glyphs = {}
    for name in order:
        pen = TTGlyphPen(glyphs)
        glyphs[name].draw(Cu2QuPen(pen, 1.0, reverse_direction=True))
        glyf.glyphs[name] = pen.glyph()
    font['glyf'] = glyf
    font['loca'] = newTable('loca')
    maxp = font['maxp']
    maxp.tableVersion = 0x00010000
    for attr in ('maxZones', 'maxTwilightPoints', 'maxStorage', 'maxFunctionDefs', 'maxInstructionDefs', 'maxStackElements', 'maxSizeOfInstructions', 'maxComponentElements', 'maxComponentDepth'):
        setattr(maxp, attr, 0)
    maxp.maxZones = 1
    post = font['post']
    post.formatType = 2.0
    post.extraNames = []
    post.mapping = {}
    post.glyphOrder = order
    font['head'].glyphDataFormat = 0
    del font['CFF ']
    if 'VORG' in font:
        del font['VORG']
    font.sfntVersion = '\x00\x01\x00\x00'
    return font


def save(font, name):
    font['glyf'].padding = 4
    font.save(os.path.join(OUT, name))


def ranges(text):
    out = []
    for part in text.split(','):
        lo, _, hi = part[2:].partition('-')
        out.extend(range(int(lo, 16), int(hi or lo, 16) + 1))
    return out


for weight in ('Regular', 'Bold'):
    save(cut(f'{NOTO}/NotoSans-{weight}.ttf', ranges(LATIN), None), f'NotoSans-{weight}.ttf')
    save(cut(f'{NOTO}/NotoSansArabic-{weight}.ttf', ranges(ARABIC), None), f'NotoSansArabic-{weight}.ttf')
save(cut(f'{NOTO}/NotoSansHebrew-Regular.ttf', ranges(HEBREW), None), 'NotoSansHebrew-Regular.ttf')
cff = os.path.join(OUT, 'cjk.tmp.otf')
cut(CJK, cjk_characters(), None, font_number=2).save(cff)
save(to_truetype(TTFont(cff)), 'NotoSansCJK-Subset.ttf')
os.remove(cff)
print('fonts written to', os.path.normpath(OUT))
