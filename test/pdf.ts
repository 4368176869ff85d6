// The text of a PDF, as Debian's poppler-utils extracts it (CI installs it;
// without it the PDF checks cannot run).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function pdfText(bytes: Buffer | Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-pdf-'));
  try {
    writeFileSync(join(dir, 'r.pdf'), bytes);
    return execFileSync('pdftotext', ['-layout', join(dir, 'r.pdf'), '-'], { encoding: 'utf8' }).replace(/[ \t]+/g, ' ');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
