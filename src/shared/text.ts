// What text a person may send: the one rule for every string an API body or a
// web form carries (names, notes, messages, anything shown to others or kept).
// Refused: control characters other than a new line (U+0000-U+001F but LF and
// CR, U+007F-U+009F), and text that is not well-formed Unicode (a lone
// surrogate, which JSON's \uD800 escapes can carry and PostgreSQL cannot store).

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0009\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/** Why `text` cannot be taken, in words that follow a field's name, or undefined. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  const control = CONTROL.exec(text);
  if (control !== null) return `must not contain control characters (found U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}); only new lines are allowed`;
  if (!text.isWellFormed()) return 'must be well-formed Unicode text (it holds a lone surrogate)';
  return undefined;
}

/**
 * Can JSON `source` hold text textProblem refuses? A fast look at the raw text (escapes of
 * controls, \b \f \t included, or of surrogates; raw C1 controls), so that most bodies are never walked.
 */
export function mayHoldRefusedText(source: string): boolean {
  return /\\([bft]|u(00[01][0-9a-f]|007f|008[0-9a-f]|009[0-9a-f]|d[89a-f][0-9a-f]{2}))|[\u007F-\u009F]/i.test(source);
}
