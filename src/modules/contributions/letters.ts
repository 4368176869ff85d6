// The PDF letters (letter.ts), loaded when the first one is made: pdf-lib, fontkit and the fonts
// cost every command and process that never prints a letter a tenth of a second or more.
import type * as Letter from './letter.ts';

export const letterPdf: typeof Letter.letterPdf = async (...args) => (await import('./letter.ts')).letterPdf(...args);
export const lettersPdf: typeof Letter.lettersPdf = async (...args) => (await import('./letter.ts')).lettersPdf(...args);
