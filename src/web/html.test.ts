import { test } from 'node:test';
import assert from 'node:assert/strict';
import { html, usdCents, day } from './html.ts';

test('interpolated strings are escaped; nested templates are not escaped twice', () => {
  const name = '<script>alert("x")</script> & \'co\'';
  const page = html`<p title="${name}">${name}</p>${html`<b>${'<i>'}</b>`}`;
  assert.equal(
    page.text,
    '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</p><b>&lt;i&gt;</b>',
  );
});

test('arrays join, and null, undefined and false render nothing', () => {
  assert.equal(html`${['a', html`<br>`, null, undefined, false, 0]}`.text, 'a<br>0');
});

test('money and dates for people', () => {
  assert.equal(usdCents(123450), '$1,234.50');
  assert.equal(usdCents(5), '$0.05');
  assert.equal(day('2026-11-22T23:59:00.000Z'), 'Nov 22, 2026');
  assert.equal(day('2026-01-05'), 'Jan 5, 2026');
});
