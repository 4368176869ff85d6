// Printable letters (receipts, tax statements): US Letter pages written line by
// line, in fonts embedded from fonts/ (Noto, SIL Open Font License) so that a
// donor's name in any script the platform meets is printed, not refused: Latin,
// Greek and Cyrillic (Noto Sans), Arabic (Noto Sans Arabic, shaped by fontkit),
// Hebrew, and Chinese, Japanese and Korean (a subset of Noto Sans CJK; fonts/README.md).
// Right-to-left text is laid out by the Unicode bidirectional algorithm
// (bidi-js): each line's runs in visual order, bidi controls applied and not drawn.
// A character no font has is drawn as '?'.
import { readFileSync } from 'node:fs';
import { PDFDocument, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import fontkit from '@pdf-lib/fontkit';
import bidiModule, { type Bidi } from 'bidi-js';

// The package is CommonJS whose export is the factory; its types describe an ES default export.
const bidi = (bidiModule as unknown as () => Bidi)();

const FONT_FILES = {
  sans: 'NotoSans-Regular.ttf',
  sansBold: 'NotoSans-Bold.ttf',
  arabic: 'NotoSansArabic-Regular.ttf',
  arabicBold: 'NotoSansArabic-Bold.ttf',
  hebrew: 'NotoSansHebrew-Regular.ttf',
  cjk: 'NotoSansCJK-Subset.ttf',
} as const;

type FontName = keyof typeof FONT_FILES;

interface FontFile {
  bytes: Uint8Array;
  /** Whether the font has a glyph for a code point (its cmap, read once). */
  has: (codePoint: number) => boolean;
}

/** The font files, read and parsed once per process. */
let files: Record<FontName, FontFile> | undefined;
function fontFiles(): Record<FontName, FontFile> {
  files ??= Object.fromEntries(
    Object.entries(FONT_FILES).map(([name, file]) => {
      const bytes = new Uint8Array(readFileSync(new URL(`./fonts/${file}`, import.meta.url)));
      const parsed = fontkit.create(bytes) as unknown as { hasGlyphForCodePoint(cp: number): boolean };
      return [name, { bytes, has: (cp: number) => parsed.hasGlyphForCodePoint(cp) }];
    }),
  ) as unknown as Record<FontName, FontFile>;
  return files;
}

const ASCII = /^[\x20-\x7E]*$/;
const INK = rgb(0.1, 0.15, 0.2);

/** Explicit bidi controls and marks: they steer the layout and are not drawn. */
const BIDI_CONTROLS = /[\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
/** Letters of scripts fontkit shapes right to left (it returns their glyphs in visual order). */
const RTL_LETTER = /[\u0590-\u05FF\u0600-\u06FF\u0750-\u077F\u08A0-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

const CHAINS: Readonly<Record<'regular' | 'bold', readonly FontName[]>> = {
  regular: ['sans', 'arabic', 'hebrew', 'cjk'],
  bold: ['sansBold', 'arabicBold', 'hebrew', 'cjk'],
};

/**
 * OpenType features turned off per font. The Latin, Greek and Cyrillic faces need no shaping (text
 * is NFC: precomposed letters), and their kerning and ligature lookups were most of the time a
 * run's thousands of letters took (every line laid out by fontkit); the Arabic, Hebrew and CJK
 * faces keep every feature their scripts need.
 */
const PLAIN = { kern: false, liga: false, calt: false, clig: false, dlig: false, ccmp: false, locl: false, mark: false, mkmk: false, rlig: false };
const FEATURES: Readonly<Record<FontName, Record<string, boolean> | undefined>> = {
  sans: PLAIN,
  sansBold: PLAIN,
  arabic: undefined,
  arabicBold: undefined,
  hebrew: undefined,
  cjk: undefined,
};

/** The font of the chain that has `char`, or undefined. */
function fontFor(chain: readonly FontName[], char: string): FontName | undefined {
  const cp = char.codePointAt(0) ?? 0;
  return chain.find((name) => fontFiles()[name].has(cp));
}

/**
 * The font, its text encoded once per text: encoding lays the text out (fontkit), and a run's
 * letters repeat most of their lines (the sponsor, the closing words, the donors' names). The
 * encoding of a text does not change once its glyphs are in the subset, so the first is reused.
 */
function remembered(font: PDFFont): PDFFont {
  const encode = font.encodeText.bind(font);
  const encoded = new Map<string, ReturnType<PDFFont['encodeText']>>();
  font.encodeText = (text: string) => {
    let found = encoded.get(text);
    if (found === undefined) {
      if (encoded.size >= 50_000) encoded.clear();
      found = encode(text);
      encoded.set(text, found);
    }
    return found;
  };
  return font;
}

/** The few parts of fontkit's font and glyph that laying out ASCII by its cmap needs. */
interface FontkitFont {
  layout(text: string, features?: unknown): { glyphs: Array<{ advanceWidth: number }>; positions?: unknown[] };
  glyphForCodePoint(codePoint: number): { advanceWidth: number };
}

/**
 * A face without shaping (PLAIN) lays printable ASCII out by its cmap: one glyph per character,
 * its advance its width, which is what fontkit's layout returns for it with those features off,
 * without its per-call setup (most of a letter's time). pdf-lib reaches fontkit through its
 * embedder's `font`; any other text still goes through fontkit's layout.
 */
function asciiByCmap(pdfFont: PDFFont): void {
  const font = (pdfFont as unknown as { embedder: { font: FontkitFont } }).embedder.font;
  const layout = font.layout.bind(font);
  const glyphs = new Map<number, { advanceWidth: number }>();
  font.layout = (text, features) => {
    if (!ASCII.test(text)) return layout(text, features);
    const run: Array<{ advanceWidth: number }> = [];
    for (let i = 0; i < text.length; i++) {
      const cp = text.charCodeAt(i);
      let glyph = glyphs.get(cp);
      if (glyph === undefined) {
        glyph = font.glyphForCodePoint(cp);
        glyphs.set(cp, glyph);
      }
      run.push(glyph);
    }
    return { glyphs: run };
  };
}

/** A document's fonts, each embedded (as a subset) the first time a line needs it. */
class Faces {
  readonly #embedded = new Map<FontName, PDFFont>();
  readonly #pdf: PDFDocument;
  constructor(pdf: PDFDocument) {
    this.#pdf = pdf;
    pdf.registerFontkit(fontkit);
  }

  /** Embeds the fonts `text` needs from `chain` (and the chain's first, for '?'). */
  async need(chain: readonly FontName[], text: string): Promise<void> {
    const names = new Set<FontName>([chain[0] as FontName]);
    for (const char of text) {
      const name = fontFor(chain, char);
      if (name !== undefined) names.add(name);
    }
    for (const name of names)
      if (!this.#embedded.has(name)) {
        const font = remembered(await this.#pdf.embedFont(fontFiles()[name].bytes, { subset: true, features: FEATURES[name] }));
        if (FEATURES[name] === PLAIN) asciiByCmap(font);
        this.#embedded.set(name, font);
      }
  }

  readonly #widths = new Map<string, number>();

  /** The width of `text` at `size` in `chain`, measured once per document (a letter's words repeat across a run's letters). */
  width(text: string, size: number, measure: () => number, chain: readonly FontName[]): number {
    const key = `${chain.join(',')} ${size} ${text}`;
    let found = this.#widths.get(key);
    if (found === undefined) {
      if (this.#widths.size >= 100_000) this.#widths.clear();
      found = measure();
      this.#widths.set(key, found);
    }
    return found;
  }

  /** An embedded font (need() has embedded it). */
  get(name: FontName): PDFFont {
    const font = this.#embedded.get(name);
    if (font === undefined) throw new Error(`font ${name} was not embedded`);
    return font;
  }
}

/** A stretch of one line in one font and one bidi level, in logical order. */
interface Run {
  text: string;
  font: PDFFont;
  level: number;
}

/**
 * `line`'s runs in visual order (left to right), each run's text as it must be drawn: the runs
 * reordered by rule L2 of the bidi algorithm, a right-to-left run's characters reversed (and
 * mirrored) unless fontkit reverses them itself (a run of a right-to-left script).
 */
function visualRuns(line: string, chain: readonly FontName[], faces: Faces): Run[] {
  if (line === '') return [];
  // Printable ASCII is one left-to-right run in the chain's first face (which has every such glyph).
  if (ASCII.test(line)) return [{ text: line, font: faces.get(chain[0] as FontName), level: 0 }];
  const { levels } = bidi.getEmbeddingLevels(line);
  const mirrored = bidi.getMirroredCharactersMap(line, levels);
  const runs: Run[] = [];
  let index = 0;
  for (const char of line) {
    const at = index;
    index += char.length;
    if (BIDI_CONTROLS.test(char)) continue;
    const level = levels[at] ?? 0;
    const name = fontFor(chain, char);
    const shown = name === undefined ? '?' : char;
    const face = faces.get(name ?? (chain[0] as FontName));
    const last = runs.at(-1);
    if (last !== undefined && last.font === face && last.level === level) last.text += level % 2 === 1 ? (mirrored.get(at) ?? shown) : shown;
    else runs.push({ text: level % 2 === 1 ? (mirrored.get(at) ?? shown) : shown, font: face, level });
  }
  // A right-to-left run that fontkit will not reverse: its characters reversed here.
  for (const run of runs) if (run.level % 2 === 1 && !RTL_LETTER.test(run.text)) run.text = [...run.text].reverse().join('');
  // L2: from the highest level down to the lowest odd one, reverse every sequence of runs at that level or above.
  const highest = Math.max(...runs.map((r) => r.level));
  const lowestOdd = Math.min(...runs.map((r) => r.level).filter((l) => l % 2 === 1), highest + 1);
  for (let level = highest; level >= lowestOdd; level--) {
    for (let i = 0; i < runs.length;) {
      if ((runs[i] as Run).level < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < runs.length && (runs[j] as Run).level >= level) j++;
      runs.splice(i, j - i, ...runs.slice(i, j).reverse());
      i = j;
    }
  }
  return runs;
}

function widthOf(runs: readonly Run[], size: number): number {
  return runs.reduce((w, r) => w + r.font.widthOfTextAtSize(r.text, size), 0);
}

/**
 * Words of `text` (by spaces), a word too wide for a line broken into pieces that fit. A line's
 * width is its words' widths and its spaces' (the width of a run does not depend on its visual
 * order), each word measured once per document (`faces.width`): measuring the growing line again
 * for each word made a run's thousands of letters take minutes.
 */
function wrap(text: string, size: number, chain: readonly FontName[], faces: Faces, width: number): string[] {
  const measure = (t: string) => faces.width(t, size, () => widthOf(visualRuns(t, chain, faces), size), chain);
  const space = measure(' ');
  const lines: string[] = [];
  let current = '';
  let currentWidth = 0;
  for (const word of text.split(' ')) {
    const next = current === '' ? word : `${current} ${word}`;
    const nextWidth = current === '' ? measure(word) : currentWidth + space + measure(word);
    if (nextWidth <= width || next === '') {
      current = next;
      currentWidth = nextWidth;
      continue;
    }
    if (current !== '') lines.push(current);
    current = '';
    // A word wider than a line (a long name in a script without spaces): as many characters as fit.
    for (const char of word) {
      if (current !== '' && measure(current + char) > width) {
        lines.push(current);
        current = '';
      }
      current += char;
    }
    currentWidth = measure(current);
  }
  lines.push(current);
  return lines;
}

const MARGIN = 50;
const WIDTH = 512;

/** A printable US Letter document written line by line, wrapped at the page's width, new pages as needed. */
export async function letterPdf(title: string, write: (line: (text: string, options?: { size?: number; bold?: boolean; gap?: number }) => void) => void): Promise<Uint8Array> {
  const letters = await lettersPdf(title);
  await letters.add(write);
  return letters.save();
}

/** Lines of a letter, as `write` gives them. */
type Write = (line: (text: string, options?: { size?: number; bold?: boolean; gap?: number }) => void) => void;

/**
 * One PDF of many letters, each starting on a new page: the fonts are embedded once for all (a
 * subset of what every letter used), so a run's thousands of letters cost a page each, not a
 * document each.
 */
export async function lettersPdf(title: string): Promise<{ add(write: Write): Promise<void>; save(): Promise<Uint8Array>; pages(): number }> {
  const pdf = await PDFDocument.create();
  pdf.setTitle(title);
  pdf.setProducer('Almoner');
  const faces = new Faces(pdf);
  return {
    async add(write) {
      const lines: Array<{ text: string; size: number; chain: readonly FontName[]; gap: number }> = [];
      write((text, options = {}) => lines.push({ text, size: options.size ?? 11, chain: CHAINS[options.bold === true ? 'bold' : 'regular'], gap: options.gap ?? 6 }));
      let page: PDFPage = pdf.addPage([612, 792]);
      let y = 740;
      for (const { text, size, chain, gap } of lines) {
        await faces.need(chain, text);
        for (const line of wrap(text, size, chain, faces, WIDTH)) {
          if (y < 60) {
            page = pdf.addPage([612, 792]);
            y = 740;
          }
          let x = MARGIN;
          const runs = visualRuns(line, chain, faces);
          for (const [i, run] of runs.entries()) {
            page.drawText(run.text, { x, y, size, font: run.font, color: INK });
            // Only a run that another follows needs its width: each measure is a layout.
            if (i < runs.length - 1) x += run.font.widthOfTextAtSize(run.text, size);
          }
          y -= size + 4;
        }
        y -= gap - 4;
      }
    },
    save: () => pdf.save(),
    pages: () => pdf.getPageCount(),
  };
}
