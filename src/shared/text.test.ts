import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mayHoldRefusedText, textProblem } from './text.ts';

test('textProblem takes text with new lines, emoji and any script; refuses NUL, other controls and lone surrogates', () => {
  for (const ok of ['Ada Lovelace', 'line one\nline two\r\n', 'Привет, 世界, مرحبا, Ελλάδα', 'a 🎁 gift', '\u202Ebidi is shown, not run'])
    assert.equal(textProblem(ok), undefined, JSON.stringify(ok));
  assert.match(String(textProblem('a\u0000b')), /NUL/);
  assert.match(String(textProblem('a\u001b[31m')), /U\+001B/);
  assert.match(String(textProblem('tab\there')), /U\+0009/);
  assert.match(String(textProblem('next\u0085line')), /U\+0085/);
  assert.match(String(textProblem('a\u007fb')), /U\+007F/);
  assert.match(String(textProblem('a\ud800b')), /lone surrogate/);
  assert.match(String(textProblem('\udc00')), /lone surrogate/);
});

test('mayHoldRefusedText sees every JSON text whose strings textProblem refuses', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (s) => {
      if (textProblem(s) === undefined) return true;
      return mayHoldRefusedText(JSON.stringify({ note: s }));
    }),
    { numRuns: 2000 },
  );
  // Written by hand, as a client may: escapes in upper case, a raw C1 character.
  assert.equal(mayHoldRefusedText('{"note":"\\uD83D"}'), true);
  assert.equal(mayHoldRefusedText('{"note":"\u0085"}'), true);
  assert.equal(mayHoldRefusedText('{"note":"plain text, \\n and \\u00e9"}'), false);
});
