// End to end in a real browser: Debian's Chromium driven by playwright-core
// against a real server process on an SQLite file. Every page visited is
// saved as a screenshot in test-results/screenshots/ for review, checked by
// axe-core for accessibility, and watched for content-security violations.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import { freePort } from '../bench/processes.ts';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { bankingDayFrom } from '../src/modules/payments/index.ts';
import { openEnv, makeNonProfit, makeZipCentres, makeUser, fund, call, startServerProcess } from './harness.ts';
import { randomBytes } from 'node:crypto';
import { createAdminToken } from '../src/modules/admin/admin.service.ts';
import { pdfText } from './pdf.ts';
import { createServer as createHttpServer } from 'node:http';
import * as client from 'openid-client';
import { registerApp } from '../src/modules/apps/index.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join('test-results', 'screenshots');
/** A small phone: every page fits it. */
const PHONE = { width: 360, height: 740 };
/** A checkout provider's sign-in popup (rules §24). */
const POPUP = { width: 460, height: 720 };
const MAIL_DIR = join('test-results', 'e2e-mail');
const EIN = '261544963';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const available = existsSync(CHROMIUM);
if (!available) {
  if (process.env.ALMONER_REQUIRE_BROWSER === '1') throw new Error(`Chromium is required here but ${CHROMIUM} does not exist (apt-get install chromium)`);
  process.stderr.write(`\n*** ${CHROMIUM} not found: browser tests are SKIPPED (apt-get install chromium, or set CHROMIUM_PATH). ***\n\n`);
}

describe('in a browser (Chromium)', { skip: !available }, () => {
  let server: ChildProcess;
  let base: string;
  let adminToken: string;
  let browser: Browser;
  let grantId = 0;
  /** An app whose donate links send donors back to a page on another origin (rules §23). */
  const wheel = { clientId: '', port: 0 };
  const violations: string[] = [];
  let shot = 0;
  /** Every reviewed page's width at phone size (the last test prints them). */
  const phoneWidths: string[] = [];

  before(async () => {
    rmSync(SHOTS, { recursive: true, force: true });
    mkdirSync(SHOTS, { recursive: true });
    const env = await openEnv('sqlite', {}, { keepAs: 'e2e' });
    const irs = { subsection: '03', foundation: '15', affiliation: '3', deductibility: '1', status: '01', ruling: '200901', tax_period: '202406' };
    await makeNonProfit(env.deps, {
      ein: EIN,
      name: 'Khan Academy',
      ...irs,
      street: 'PO BOX 1630',
      city: 'Mountain View',
      state: 'CA',
      zip: '94042-1630',
      latitude: 37.39,
      longitude: -122.08,
      ntee_code: 'B60',
      website: 'https://www.khanacademy.org',
      revenue_amt: 91_000_000,
      income_amt: 120_000_000,
      asset_amt: 150_000_000,
    });
    await makeNonProfit(env.deps, {
      ein: '770000001',
      name: 'Mountain View Educational Foundation',
      ...irs,
      city: 'Mountain View',
      state: 'CA',
      latitude: 37.38,
      longitude: -122.07,
      income_amt: 900_000,
    });
    await makeNonProfit(env.deps, {
      ein: '770000002',
      name: 'Mountain View Social League',
      ...irs,
      subsection: '04',
      deductibility: '2',
      eligible: 0,
      city: 'Mountain View',
      state: 'CA',
    });
    await makeNonProfit(env.deps, {
      ein: '010880225',
      name: 'Yenza Inc',
      ...irs,
      street: 'THREE ANCHOR BAY WESTERN CAPE 8005',
      city: 'South Africa',
      state: '',
      zip: '00000-0000',
      latitude: null,
      longitude: null,
      ntee_code: 'Q21',
      cause_id: 15,
    });
    await makeZipCentres(env.deps, [['94041', 37.39, -122.08]]);
    await makeNonProfit(env.deps, { ein: '135562308', name: 'Kids Food Basket', city: 'Grand Rapids', state: 'MI' });
    adminToken = (await createAdminToken(env.deps, 'e2e', 'test')).token;
    // A donor's grant to Khan Academy, for the page its own people see once it is paid.
    const donor = await makeUser(env.deps, { name: 'Hal Patron' });
    await fund(env.deps, donor, 500_00);
    grantId = (await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: EIN, amount: 50, designation: 'Maths videos', dedication: 'For Ms. Lovelace' } })).body
      .id;
    wheel.port = await freePort();
    wheel.clientId = (await registerApp(env.deps, donor.user_id, { name: 'Giving Wheel', redirect_uris: [`http://127.0.0.1:${wheel.port}/callback`] })).app.client_id;
    await env.close();
    const port = await freePort();
    base = `http://localhost:${port}`;
    rmSync(MAIL_DIR, { recursive: true, force: true });
    ({ server } = await startServerProcess('sqlite:test-results/e2e.sqlite', {
      PORT: String(port),
      PUBLIC_URL: base,
      MAIL_DIR,
      NOTIFY_INTERVAL_MS: '200',
      // The walk opens a dozen accounts within a minute from one address; the throttle has its own tests.
      SIGN_UPS_PER_MINUTE: '100',
      PAYEE_DATA_KEY: randomBytes(32).toString('base64'),
    }));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--host-resolver-rules=MAP localhost 127.0.0.1',
      ],
    });
  });

  after(async () => {
    await browser?.close();
    server?.kill('SIGTERM');
  });

  async function newContext(): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    context.on('console', (m) => {
      if (m.type() === 'error') violations.push(m.text());
    });
    return context;
  }

  /**
   * axe-core's WCAG 2 A and AA findings for some HTML, checked in a page of its own without CSP (so
   * the page under test keeps its policy). One such page serves every check: each puts its HTML in
   * it and loads axe-core afresh (a new context and a cold axe-core took 3-4 s a check; this, 0.7 s).
   */
  let checker: Page | undefined;
  async function accessibilityProblems(content: string): Promise<string[]> {
    const page = (checker ??= await (await browser.newContext({ bypassCSP: true })).newPage());
    await page.setContent(content, { waitUntil: 'load' });
    await page.evaluate(AXE_SOURCE);
    const result = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run(o: unknown): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ html: string }> }> }> } }).axe;
      return (await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } })).violations.map(
        (v) =>
          `${v.id} (${v.impact}): ${v.nodes
            .map((n) => n.html)
            .slice(0, 2)
            .join(' | ')}`,
      );
    });
    return result;
  }

  /**
   * Saves the page for review, checks its accessibility, and checks it on a phone: laid out again at
   * 360x740 (the same page, state and all), nothing may make it wider than the screen.
   */
  async function review(page: Page, name: string): Promise<void> {
    shot += 1;
    const file = join(SHOTS, `${String(shot).padStart(2, '0')}-${name}`);
    await page.screenshot({ path: `${file}.png`, fullPage: true });
    assert.deepEqual(await accessibilityProblems(await page.content()), [], `accessibility problems on ${name}`);
    const desk = page.viewportSize() ?? { width: 1280, height: 900 };
    await page.setViewportSize(PHONE);
    const overflow = await page.evaluate((screen) => {
      type Element = { tagName: string; id: string; className: unknown; getBoundingClientRect(): { right: number }; parentElement: { closest(s: string): unknown } | null };
      const document = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<Element>; documentElement: { scrollWidth: number } } }).document;
      const wide = [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > screen + 0.5 && (e.parentElement?.closest('.table-scroll') ?? null) === null)
        .map(
          (e) =>
            `${e.tagName.toLowerCase()}${e.id === '' ? '' : `#${e.id}`}${e.className === '' ? '' : `.${String(e.className).split(' ').join('.')}`} (${Math.round(e.getBoundingClientRect().right)}px)`,
        );
      return { width: document.documentElement.scrollWidth, wide: wide.slice(0, 6) };
    }, PHONE.width);
    await page.screenshot({ path: `${file}-phone.png`, fullPage: true });
    await page.setViewportSize(desk);
    phoneWidths.push(`${name}: ${overflow.width}px`);
    assert.ok(overflow.width <= PHONE.width, `${name} is ${overflow.width}px wide on a ${PHONE.width}px phone: ${overflow.wide.join(', ')}`);
  }

  test('the accessibility check finds what it should (an unlabelled input, low contrast)', async () => {
    const problems = await accessibilityProblems(
      '<!doctype html><html lang="en"><head><title>t</title></head><body><main><input name="x"><p style="color:#bbb;background:#fff">faint</p></main></body></html>',
    );
    assert.ok(
      problems.some((p) => p.startsWith('label')),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => p.startsWith('color-contrast')),
      problems.join('\n'),
    );
  });

  async function admin(method: string, path: string, body?: unknown) {
    const response = await fetch(`${base}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  /** The page fits a 460x720 popup: nothing wider, and its `button` in view without scrolling. */
  async function fitsPopup(page: Page, button: string, name: string): Promise<void> {
    // A popup behind its opener gets no frames to capture (Chromium throttles hidden pages): the
    // screenshot then waits its whole timeout. In front, it is taken at once; headless Chromium
    // still refuses one now and then ("Unable to capture screenshot"): asked again, it gives it. The
    // picture is for people to look at; what this checks is below, whether or not it was taken.
    for (let attempt = 1; ; attempt += 1) {
      await page.bringToFront();
      try {
        await page.screenshot({ path: join(SHOTS, `popup-${name}.png`), timeout: 10_000 });
        break;
      } catch (error) {
        if (attempt === 3) {
          process.stderr.write(`# no screenshot of the ${name} popup after ${attempt} attempts: ${(error as Error).message.split('\n')[0]}\n`);
          break;
        }
        await page.waitForTimeout(250);
      }
    }
    const width = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
    assert.ok(width <= POPUP.width, `${name} is ${width}px wide in a ${POPUP.width}px popup`);
    const box = await page.getByRole('button', { name: button, exact: true }).boundingBox();
    assert.ok(box !== null && box.y + box.height <= POPUP.height, `${name}: the ${button} button is in view in the popup (${JSON.stringify(box)})`);
  }

  async function signUp(page: Page, name: string, email: string): Promise<void> {
    await page.goto(`${base}/signup`);
    await page.getByLabel('Your name').fill(name);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a long and private passphrase');
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.waitForURL(/\/dashboard/);
    await confirmAddress(page, email);
  }

  /** Follows the link mailed to the new account's address (rules §15), as its person does, and comes back. */
  async function confirmAddress(page: Page, email: string): Promise<void> {
    const back = page.url();
    let link: string | undefined;
    for (let i = 0; i < 100 && link === undefined; i++) {
      for (const file of existsSync(MAIL_DIR) ? readdirSync(MAIL_DIR).filter((f) => f.endsWith('-address_confirmation.eml')) : []) {
        const mail = await simpleParser(readFileSync(join(MAIL_DIR, file)));
        const to = mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.address : undefined;
        if (to === email.toLowerCase()) link = /(http:\/\/localhost:\d+\/account\/confirm\/[A-Za-z0-9_-]+)/.exec(mail.text ?? '')?.[1];
      }
      if (link === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(link, `a confirmation link was mailed to ${email}`);
    await page.goto(link);
    if (!confirmedOnce) await review(page, 'confirm-address');
    confirmedOnce = true;
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page.getByText('Your address is confirmed').waitFor();
    await page.goto(back);
  }
  let confirmedOnce = false;

  async function fundUser(name: string, dollars: string): Promise<void> {
    const users = await admin('GET', '/users?per_page=100');
    const user = (users.body.items as Array<{ id: number; name: string }>).find((u) => u.name === name);
    assert.ok(user, `${name} exists`);
    const recorded = await admin('POST', '/contributions', { user_id: user.id, type: 'wire_payment', units: dollars, valuation: '1', currency: 'USD', status: 'success' });
    assert.equal(recorded.status, 201, JSON.stringify(recorded.body));
  }

  test('sign up, create a key, call the API with it, donate from the web, cancel, revoke the key', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(base);
    await review(page, 'home');
    await signUp(page, 'Ada Browser', 'ada@example.org');
    await fundUser('Ada Browser', '100');
    await page.reload();
    await assert.doesNotReject(page.getByText('$100.00').first().waitFor());
    await review(page, 'dashboard');

    // On a phone the signed-in menu folds behind one button: the content starts near the top; the button opens it.
    const desk = page.viewportSize() ?? { width: 1280, height: 900 };
    await page.setViewportSize(PHONE);
    const header = await page.locator('header.site').boundingBox();
    assert.ok(header !== null && header.height <= 80, `the header takes ${header?.height}px of a phone`);
    assert.equal(await page.getByRole('link', { name: 'API keys' }).isVisible(), false, 'folded');
    await page.getByRole('button', { name: 'Menu' }).click();
    assert.equal(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded'), 'true');
    assert.equal(await page.getByRole('link', { name: 'API keys' }).isVisible(), true, 'open');
    await review(page, 'phone-menu');
    await page.setViewportSize(desk);

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name', { exact: true }).fill('My script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.locator('#new-key').inputValue();
    assert.match(key, /^alm_live_[0-9A-Za-z]{40}$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText()),
      key,
      'the copy button copies the key',
    );
    await review(page, 'keys-created');
    await page.reload();
    assert.equal(await page.locator('#new-key').count(), 0, 'shown once: gone on reload, and no second key made');
    assert.equal(await page.locator('tr[data-key]').count(), 1);

    const me = await fetch(`${base}/v1/users/me`, { headers: { 'x-api-key': key } });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { name: string }).name, 'Ada Browser');

    await page.getByRole('link', { name: 'Dashboard' }).click();
    const charity = page.locator('#f-donate-ein');
    await charity.pressSequentially('khan aca', { delay: 40 });
    const option = page.getByRole('option', { name: /Khan Academy/ });
    await option.waitFor();
    await review(page, 'donate-suggestions');
    await charity.press('ArrowDown');
    await charity.press('Enter');
    assert.equal(await charity.inputValue(), EIN, 'picking a suggestion fills in the EIN');
    await page.getByLabel('Amount (USD)').first().fill('25');
    await page.getByLabel('Public note (optional)').fill('For the videos');
    await page.getByRole('button', { name: 'Donate' }).click();
    await page.getByText('Your donation is recorded.').waitFor();
    const row = page.locator('tr[data-donation]').first();
    assert.match(await row.innerText(), /Khan Academy[\s\S]*\$25\.00[\s\S]*Scheduled/);
    await review(page, 'donation-created');

    // A failed form on a phone lands on its error, however far down the page the form is: the summary focused and in view.
    const wide = page.viewportSize() ?? { width: 1280, height: 900 };
    await page.setViewportSize(PHONE);
    await page.locator('#f-donate-ein').fill('zzqx no such charity anywhere');
    await page.getByLabel('Amount (USD)').first().fill('5');
    await page.getByRole('button', { name: 'Donate' }).click();
    await page.locator('#form-errors').waitFor();
    const landed = await page.evaluate(() => {
      const document = (
        globalThis as unknown as { document: { activeElement: { id: string } | null; getElementById(id: string): { getBoundingClientRect(): { top: number } } | null } }
      ).document;
      return {
        focused: document.activeElement?.id,
        top: document.getElementById('form-errors')?.getBoundingClientRect().top ?? -1,
        height: (globalThis as unknown as { innerHeight: number }).innerHeight,
      };
    });
    assert.equal(landed.focused, 'form-errors', 'the error summary has the focus');
    assert.ok(landed.top >= 0 && landed.top < landed.height, `the error summary is in view (${landed.top}px of ${landed.height}px)`);
    await page.setViewportSize(wide);

    const api = await fetch(`${base}/v1/donations`, { headers: { 'x-api-key': key } });
    const listed = (await api.json()) as { items: Array<{ amount: number; status: string }> };
    assert.deepEqual(
      listed.items.map((d) => [d.amount, d.status]),
      [[25, 'scheduled']],
      'the API sees the web donation',
    );

    await row.getByRole('button', { name: /Cancel the donation/ }).click();
    await page.getByText('The donation is cancelled').waitFor();
    assert.match(await page.locator('tr[data-donation]').first().innerText(), /Cancelled/);
    assert.equal(await page.locator('tr[data-donation]').first().getByRole('button').count(), 0, 'no cancel button any more');
    await review(page, 'donation-cancelled');

    // 180 times the balance, from the charity's own page: asked there first, then it waits.
    await page.goto(`${base}/charities/${EIN}`);
    await page.getByLabel('Amount (USD)').fill('18000');
    await page.getByRole('button', { name: 'Donate' }).click();
    await page.locator('#donation-wait').waitFor();
    assert.match(await page.locator('#donation-wait').innerText(), /Your fund has \$100\.00 available to give; this donation is \$18,000\.00\./);
    assert.equal(await page.getByRole('heading', { name: 'Khan Academy', exact: true }).count(), 1, 'still on the charity page');
    await review(page, 'donation-wait-question');
    await page.getByRole('button', { name: 'Donate when the money is there' }).click();
    await page.waitForURL(/\/dashboard\?done=donation_waiting/);
    assert.match(await page.locator('tr[data-donation]').first().innerText(), /\$18,000\.00[\s\S]*Waiting for funds/);
    await page
      .locator('tr[data-donation]')
      .first()
      .getByRole('button', { name: /Cancel the donation/ })
      .click();
    await page.getByText('The donation is cancelled').waitFor();

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Revoke the key My script' }).click();
    await page.getByText('The key is revoked').waitFor();
    await review(page, 'keys-revoked');
    const revoked = await fetch(`${base}/v1/users/me`, { headers: { 'x-api-key': key } });
    assert.equal(revoked.status, 401, 'a revoked key stops at once');

    await page.getByRole('link', { name: 'Profile', exact: true }).click();
    await review(page, 'profile-settings');
    await page.getByRole('link', { name: 'Your page' }).click();
    await review(page, 'profile-page');
    await page.goto(`${base}/charities`);
    await review(page, 'charity-browse');
    await page.getByRole('link', { name: 'Education' }).click();
    await page.getByRole('heading', { name: 'The largest organisations: Education' }).waitFor();
    await review(page, 'charity-cause');
    await page.goto(`${base}/charities?query=khan`);
    await review(page, 'charity-search');
    await page.getByRole('link', { name: 'Khan Academy' }).click();
    await page.getByRole('heading', { name: 'Khan Academy', exact: true }).waitFor();
    await review(page, 'charity-page');
    await context.close();
  });

  test('a gift sent by one user is claimed for a non-profit in a second browser context', async () => {
    const giverContext = await newContext();
    const giver = await giverContext.newPage();
    await signUp(giver, 'Grace Giver', 'grace@example.org');
    await fundUser('Grace Giver', '200');
    await giver.reload();
    await giver.getByLabel("Recipient's name").fill('Bo');
    await giver.locator('form[action="/dashboard/gifts"]').getByLabel('Amount (USD)').fill('50');
    await giver.getByLabel('Message (optional)').fill('Happy birthday, <b>Bo</b>!');
    await giver.getByLabel("Recipient's email (optional)").fill('Bo@Example.org');
    await giver.getByRole('button', { name: 'Create gift' }).click();
    await giver.getByText('Your gift is ready').waitFor();
    const link = await giver.locator('tr[data-gift] input').inputValue();
    assert.ok(link.startsWith(`${base}/gifts/`));
    await review(giver, 'gift-created');

    const recipientContext = await newContext();
    const bo = await recipientContext.newPage();
    await bo.goto(link);
    await bo.getByText('Grace Giver sent Bo a gift of $50.00').waitFor();
    assert.equal(await bo.locator('blockquote.message').innerText(), 'Happy birthday, <b>Bo</b>!', 'the message is shown as text');
    await review(bo, 'gift-signed-out');
    await bo.getByRole('link', { name: 'open a fund' }).click();
    await signUp(bo, 'Bo Recipient', 'bo@example.org');
    // The gift was sent to this address: the new fund's dashboard has it, with its link.
    const waiting = bo.locator('#waiting-gifts');
    assert.match(await waiting.innerText(), /Gifts for you[\s\S]*\$50\.00 from Grace Giver/);
    await review(bo, 'gifts-for-you');
    await waiting.getByRole('link', { name: /\$50\.00 from Grace Giver/ }).click();
    await bo.waitForURL(link);
    const claim = bo.locator('#f-ein');
    await claim.pressSequentially('khan', { delay: 40 });
    await bo.getByRole('option', { name: /Khan Academy/ }).click();
    assert.equal(await claim.inputValue(), EIN);
    await review(bo, 'gift-claim');
    await bo.getByRole('button', { name: 'Send $50.00' }).click();
    await bo.getByText('This gift has been sent to a non-profit').waitFor();
    await review(bo, 'gift-claimed');

    await giver.reload();
    assert.match(await giver.locator('tr[data-gift]').innerText(), /Claimed/);
    assert.match(await giver.locator('tr[data-donation]').first().innerText(), /Khan Academy[\s\S]*\$50\.00/);
    await giverContext.close();
    await recipientContext.close();
    const check = await admin('GET', '/check');
    assert.equal(check.status, 200, JSON.stringify(check.body));
  });

  test('sign up, add money (declare shares), read the instructions; the operator receives them; the donor sees the balance and downloads the receipt PDF', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await signUp(page, 'Marie Stock', 'marie@example.org');
    await page.getByRole('link', { name: 'Add money' }).first().click();
    await page.waitForURL(`${base}/money`);
    await review(page, 'add-money');
    assert.ok(await page.getByLabel('Amount (USD)').isVisible(), 'a wire asks for an amount');
    assert.ok(!(await page.getByLabel('How many shares or tokens').isVisible()), 'and not for shares');
    await page.getByLabel('How you will send it').selectOption({ label: 'Stock or fund shares' });
    assert.ok(!(await page.getByLabel('Amount (USD)').isVisible()), 'shares are declared without an amount');
    await page.getByLabel('How many shares or tokens').fill('12');
    await page.getByLabel('Ticker or token symbol').fill('vti');
    await page.getByRole('button', { name: 'Get instructions' }).click();
    await page.getByRole('heading', { name: 'How to send it' }).waitFor();
    const instructions = await page.locator('ol').innerText();
    assert.match(instructions, /transfer 12 shares of VTI/);
    const reference = await page.locator('strong.reference').first().innerText();
    assert.match(reference, /^ALM-\w{4}-\w{4}$/);
    assert.ok(instructions.includes(reference), 'the steps name the reference');
    await review(page, 'add-money-instructions');

    // The shares arrive: the operator finds them by the reference and records them at the day's price.
    const [waiting] = (await admin('GET', `/contributions/awaiting?reference=${reference}`)).body.items as Array<{ id: number }>;
    assert.ok(waiting);
    assert.equal((await admin('POST', `/contributions/${waiting.id}/receive`, { units: '12', valuation: '301.25', valuation_source: 'NYSE Arca close' })).status, 200);
    assert.equal((await admin('POST', `/contributions/${waiting.id}/advance`, { status: 'success' })).status, 200);

    await page.reload();
    await page.getByRole('heading', { name: /^Receipt R-\d{6}$/ }).waitFor();
    await review(page, 'receipt');
    await page.getByRole('link', { name: 'Add money' }).first().click();
    await page.getByText('Available to give: $3,615.00').waitFor();
    await page.goto(`${base}/money/${waiting.id}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download receipt (PDF)' }).click()]);
    assert.match(download.suggestedFilename(), /^receipt-R-\d{6}\.pdf$/);
    const text = pdfText(readFileSync(await download.path()));
    for (const expected of ['Donor: Marie Stock', 'Contributed: 12 VTI (non-cash)', 'Value used: $3,615.00 (NYSE Arca close)', 'No goods or services', '170(f)(18)'])
      assert.ok(text.includes(expected), `the downloaded receipt says ${expected}: ${text}`);
    await context.close();
  });

  test('forgot password: ask, open the mailed link, set a password, sign in; the old session is gone; webhooks settings', async () => {
    const old = await newContext();
    const before = await old.newPage();
    await signUp(before, 'Forgetful Fay', 'fay@example.org');
    await before.getByRole('link', { name: 'Webhooks' }).click();
    await before.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await review(before, 'webhooks');
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${base}/signin`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill('fay@example.org');
    await page.getByRole('button', { name: 'Send me a link' }).click();
    await page.getByText('If an account uses that address').waitFor();
    await review(page, 'forgot-sent');
    // The server's mail worker writes the message (no SMTP_URL): read it as the person would.
    let file: string | undefined;
    for (let i = 0; i < 100 && file === undefined; i++) {
      file = existsSync(MAIL_DIR) ? readdirSync(MAIL_DIR).find((f) => f.endsWith('-password_reset.eml')) : undefined;
      if (file === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(file, 'the reset message was written');
    const mail = await simpleParser(readFileSync(join(MAIL_DIR, file)));
    assert.equal(mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.address : undefined, 'fay@example.org');
    const link = /(http:\/\/localhost:\d+\/reset\/[A-Za-z0-9_-]+)/.exec(mail.text ?? '')?.[1];
    assert.ok(link, mail.text);
    await page.goto(link);
    await review(page, 'reset-password');
    await page.getByLabel('New password').fill('a fresh and private passphrase');
    await page.getByRole('button', { name: 'Set my password' }).click();
    await page.getByText('Your password is set').waitFor();
    await page.getByLabel('Email').fill('fay@example.org');
    await page.getByLabel('Password').fill('a fresh and private passphrase');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard`);
    await before.goto(`${base}/dashboard`);
    await before.waitForURL(/\/signin/);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await old.close();
    await context.close();
  });

  test('a shared fund: the organizer invites, the teenager signs up from the mailed link and accepts, asks to give; the organizer approves', async () => {
    const oliviaContext = await newContext();
    const olivia = await oliviaContext.newPage();
    await signUp(olivia, 'Olivia Organizer', 'olivia@example.org');
    await fundUser('Olivia Organizer', '300');
    await olivia.getByRole('link', { name: 'Fund', exact: true }).click();
    await olivia.getByRole('heading', { name: 'Invite someone to give with you' }).waitFor();
    await review(olivia, 'fund');
    await olivia.getByLabel('Their e-mail address').fill('tess@example.org');
    await olivia.getByLabel('Role', { exact: true }).selectOption('family');
    await olivia.getByRole('button', { name: 'Send the invitation' }).click();
    await olivia.getByText('The invitation is on its way').waitFor();
    let file: string | undefined;
    for (let i = 0; i < 100 && file === undefined; i++) {
      file = existsSync(MAIL_DIR) ? readdirSync(MAIL_DIR).find((f) => f.endsWith('-fund_invitation.eml')) : undefined;
      if (file === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(file, 'the invitation was written');
    const mail = await simpleParser(readFileSync(join(MAIL_DIR, file)));
    const link = /(http:\/\/localhost:\d+\/join\/[A-Za-z0-9_-]+)/.exec(mail.text ?? '')?.[1];
    assert.ok(link, mail.text);

    const tessContext = await newContext();
    const tess = await tessContext.newPage();
    await tess.goto(link);
    await tess.getByText('Olivia Organizer invites you').waitFor();
    await review(tess, 'invitation');
    await tess.getByRole('link', { name: /Sign up with/ }).click();
    await tess.getByLabel('Your name').fill('Tess Teen');
    await tess.getByLabel('Email').fill('tess@example.org');
    await tess.getByLabel('Password').fill('a long and private passphrase');
    await tess.getByRole('button', { name: 'Create my account' }).click();
    await tess.getByRole('button', { name: 'Accept and give together' }).waitFor();
    // The invitation is taken up by an account whose address is proven (rules §15): the link mailed at sign-up.
    await confirmAddress(tess, 'tess@example.org');
    await tess.getByRole('button', { name: 'Accept and give together' }).click();
    await tess.getByText('you give together now').waitFor();
    await review(tess, 'fund-family');
    await tess.getByRole('link', { name: 'Dashboard' }).click();
    await tess.locator('#f-donate-ein').fill(EIN);
    await tess.getByLabel('Amount (USD)').first().fill('25');
    // Her page follows her role: she asks (Request), she does not donate.
    assert.equal(await tess.getByRole('button', { name: 'Donate' }).count(), 0);
    await tess.getByRole('button', { name: 'Request' }).click();
    await tess.getByText('Your request is sent').waitFor();

    await olivia.goto(`${base}/fund`);
    await olivia.getByText('Tess Teen asks to give $25.00').waitFor();
    await review(olivia, 'fund-request');
    await olivia.getByRole('button', { name: 'Approve' }).click();
    await olivia.getByText('The request is approved').waitFor();
    await oliviaContext.close();
    await tessContext.close();
    const check = await admin('GET', '/check');
    assert.equal(check.status, 200, JSON.stringify(check.body));
  });

  test('charity pages: one that cannot receive donations and why, a foreign one, others nearby and like it; near me by ZIP code', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${base}/charities/770000002`);
    await page.getByText('This organisation cannot receive donations.').waitFor();
    assert.ok((await page.textContent('main'))?.includes('The IRS lists contributions to it as not tax-deductible.'));
    await review(page, 'charity-ineligible');
    await page.goto(`${base}/charities/010880225`);
    await page.getByRole('heading', { name: 'Yenza Inc', exact: true }).waitFor();
    assert.match((await page.locator('address').textContent()) ?? '', /Three Anchor Bay Western Cape 8005\s*South Africa/);
    await review(page, 'charity-foreign');
    await page.goto(`${base}/charities/${EIN}`);
    await page.getByRole('heading', { name: 'Nearby' }).waitFor();
    await review(page, 'charity-details');
    await page.getByRole('region', { name: 'Nearby' }).getByRole('link', { name: 'Mountain View Educational Foundation' }).click();
    await page.getByRole('heading', { name: 'Mountain View Educational Foundation', exact: true }).waitFor();
    await page.goto(`${base}/charities`);
    await page.getByLabel('Or the largest organisations near a ZIP code').fill('94041');
    await page.getByLabel('Or the largest organisations near a ZIP code').press('Enter');
    await page.getByRole('heading', { name: 'The largest organisations: near 94041' }).waitFor();
    assert.ok((await page.textContent('main'))?.includes('Khan Academy'));
    await review(page, 'charity-near-zip');
    await context.close();
  });

  test("a charity's own person: claims it, follows the mailed link, is approved, gives bank details, sees a payment and its remittance", async () => {
    const context = await newContext();
    const page = await context.newPage();
    await signUp(page, 'Kim Staff', 'kim@home.example');
    await page.goto(`${base}/charities/${EIN}`);
    await page.getByRole('link', { name: 'Claim this organisation' }).click();
    await page.getByRole('heading', { name: 'Claim Khan Academy' }).waitFor();
    await review(page, 'charity-claim');
    await page.getByLabel('Your e-mail address at the organisation').fill('kim@gmail.com');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText('must be an address at khanacademy.org').first().waitFor();
    await review(page, 'charity-claim-refused');
    await page.getByLabel('Your e-mail address at the organisation').fill('kim@khanacademy.org');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText('A link is on its way').waitFor();
    let file: string | undefined;
    for (let i = 0; i < 100 && file === undefined; i++) {
      file = existsSync(MAIL_DIR) ? readdirSync(MAIL_DIR).find((f) => f.endsWith('-charity_claim.eml')) : undefined;
      if (file === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(file, 'the claim message was written');
    const mail = await simpleParser(readFileSync(join(MAIL_DIR, file)));
    assert.equal(mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.address : undefined, 'kim@khanacademy.org');
    const link = /(http:\/\/localhost:\d+\/charities\/claims\/confirm\/[A-Za-z0-9_-]+)/.exec(mail.text ?? '')?.[1];
    assert.ok(link, mail.text);
    await page.goto(link);
    await review(page, 'charity-claim-confirm');
    await page.getByRole('button', { name: 'Confirm the claim' }).click();
    await page.getByText('Your claim is confirmed').first().waitFor();
    const [claim] = (await admin('GET', '/charity_claims')).body.items;
    assert.equal(claim.email, 'kim@khanacademy.org');
    assert.equal((await admin('POST', `/charity_claims/${claim.id}/approve`, { note: 'listed on the staff page' })).status, 200);

    await page.goto(`${base}/charities/${EIN}/manage`);
    await page.getByRole('heading', { name: 'Bank details' }).waitFor();
    await page.getByLabel("Account holder's name").fill('Khan Academy Inc');
    await page.getByLabel('Routing number').fill('091000018');
    await page.getByLabel('Account number').fill('123456789');
    await page.getByRole('button', { name: 'Save the bank details' }).click();
    await page.getByText('check digit is right').first().waitFor();
    await review(page, 'charity-bank-refused');
    await page.getByLabel('Routing number').fill('091000019');
    await page.getByLabel('Account number').fill('123456789');
    await page.getByRole('button', { name: 'Save the bank details' }).click();
    await page.getByText('The bank details are saved').waitFor();
    assert.ok((await page.textContent('main'))?.includes('••••6789'));

    // The grant is approved and paid in a run (by check: the new details wait out the cooling-off).
    assert.equal((await admin('POST', `/donations/${grantId}/approve`, {})).status, 200);
    // The pay date is a banking day (rules §17): the next one from today.
    const opened = await admin('POST', '/payment_runs', { pay_date: bankingDayFrom(new Date().toISOString().slice(0, 10)) });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    assert.equal((await admin('POST', `/payment_runs/${opened.body.run.id}/submit`, {})).status, 200);
    await page.reload();
    await page
      .getByRole('table', { name: /The grants of payment/ })
      .first()
      .waitFor();
    assert.ok((await page.textContent('main'))?.includes('Maths videos'));
    await review(page, 'charity-manage');
    const href = await page.getByRole('link', { name: 'Remittance advice (PDF)' }).first().getAttribute('href');
    const pdf = await context.request.get(`${base}${href}`);
    assert.equal(pdf.status(), 200);
    const letter = pdfText(await pdf.body());
    assert.match(letter, /Hal Patron/);
    assert.match(letter, /For: Maths videos/);
    await context.close();
  });

  test('investing: a donor chooses a portfolio and a share, the next valuation buys units, the dashboard draws the value', async () => {
    for (const [name, holdings] of [
      [
        'Balanced',
        [
          { symbol: 'VTI', weight: 50 },
          { symbol: 'BND', weight: 50 },
        ],
      ],
      ['Growth', [{ symbol: 'VTI', weight: 100 }]],
    ] as const) {
      const made = await admin('POST', '/portfolios', { name, description: `${name} pool`, risk_level: 'medium', annual_fee_bps: 15, holdings });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    const hour = (n: number) => new Date(Date.now() - (5 - n) * 3_600_000).toISOString();
    const valuate = async (n: number, vti: string, bnd: string) => {
      assert.equal(
        (
          await admin('POST', '/prices', {
            prices: [
              { symbol: 'VTI', price: vti, time: hour(n) },
              { symbol: 'BND', price: bnd, time: hour(n) },
            ],
          })
        ).status,
        201,
      );
      const valued = await admin('POST', '/valuations', { at: hour(n) });
      assert.equal(valued.status, 201, JSON.stringify(valued.body));
    };
    await valuate(0, '250', '72.5');
    const context = await newContext();
    const page = await context.newPage();
    await signUp(page, 'Ivy Investor', 'ivy@example.org');
    await page.getByRole('link', { name: 'Investing' }).first().click();
    await page.getByRole('heading', { name: 'Investing', level: 1 }).waitFor();
    await page.getByLabel(/Balanced/).check();
    await page.getByLabel('Share of new contributions to invest (%)').fill('101');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('must be a whole percent from 0 to 100').first().waitFor();
    await review(page, 'invest-refused');
    await page.getByLabel(/Balanced/).check();
    await page.getByLabel('Share of new contributions to invest (%)').fill('100');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Your choice is saved').waitFor();
    await fundUser('Ivy Investor', '1000');
    await page.reload();
    await page.getByText('Waiting to be invested').waitFor();
    await review(page, 'invest-chosen');
    await valuate(1, '252.50', '72.40');
    await valuate(2, '255', '72.30');
    await page.reload();
    await page.getByRole('img', { name: /What your invested money was worth/ }).waitFor();
    await review(page, 'invest-chart');
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.getByText('The total is what is available').waitFor();
    await page.getByText(/This year your investments (gained|lost) \$[\d,.]+ and paid \$[\d,.]+ in fees\./).waitFor();
    assert.equal(await page.getByRole('img', { name: /What your invested money was worth/ }).count(), 1, 'the dashboard draws the value');
    await review(page, 'dashboard-invested');
    await context.close();
  });

  test('Login with Almoner: an app is registered, a donor signs in and consents, the app donates with its token, a read-only token is refused, the donor disconnects it', async () => {
    const developer = await newContext();
    const dev = await developer.newPage();
    await signUp(dev, 'Devi Developer', 'devi@example.org');
    const rpPort = await freePort();
    const rpBase = `http://localhost:${rpPort}`;
    await dev.goto(`${base}/settings/apps`);
    await dev.getByLabel('Name').fill('Match My Gift');
    await dev.getByLabel('Redirect URIs').fill(`${rpBase}/callback`);
    await dev.getByRole('button', { name: 'Register app' }).click();
    await dev.waitForURL(`${base}/settings/apps`);
    await review(dev, 'apps-registered');
    const clientId = (await dev.locator('[data-app] code').first().textContent()) ?? '';
    const secret = await dev.locator('#new-secret').inputValue();
    assert.match(clientId, /^app_/);
    await developer.close();

    const app = await relyingPartyServer(rpPort, clientId, secret);
    try {
      const donorContext = await newContext();
      const donor = await donorContext.newPage();
      await signUp(donor, 'Omar Openid', 'omar@example.org');
      await fundUser('Omar Openid', '500');
      await donor.goto(`${rpBase}/login?scope=${encodeURIComponent('openid profile read donate')}`);
      await donor.waitForURL(/\/oauth\/interaction\//);
      await donor.getByRole('heading', { name: 'Allow Match My Gift to act for you?' }).waitFor();
      await review(donor, 'consent');
      await donor.getByLabel('Monthly limit in dollars (optional)').fill('100');
      await donor.getByRole('button', { name: 'Allow' }).click();
      await donor.waitForURL(`${rpBase}/callback*`);
      const granted = (await donor.textContent('body')) ?? '';
      assert.match(granted, /me 200/);
      assert.match(granted, /donation 201/);

      await donor.goto(`${rpBase}/login?scope=${encodeURIComponent('openid read')}`);
      await donor.waitForURL(`${rpBase}/callback*`);
      const readOnly = (await donor.textContent('body')) ?? '';
      assert.match(readOnly, /me 200/);
      assert.match(readOnly, /donation 403 insufficient_scope/);

      // A checkout provider's popup (rules §24): 460x720, signed out; the donor signs in there and
      // allows it, each page fitting the popup with its button in view; the token is for granting only.
      const popupContext = await browser.newContext({ viewport: POPUP });
      const popup = await popupContext.newPage();
      await popup.goto(`${rpBase}/login?scope=${encodeURIComponent('openid dafpay')}`);
      await popup.waitForURL(/\/signin/);
      await fitsPopup(popup, 'Sign in', 'sign-in');
      await popup.getByLabel('Email').fill('omar@example.org');
      await popup.getByLabel('Password').fill('a long and private passphrase');
      await popup.getByRole('button', { name: 'Sign in' }).click();
      // Signed in, the popup passes through the sign-in's interaction on its way to the consent's:
      // the URL alone matches both, so wait for the consent itself before measuring it.
      await popup.waitForURL(/\/oauth\/interaction\//);
      await popup.getByRole('heading', { name: 'Allow Match My Gift to act for you?' }).waitFor();
      await fitsPopup(popup, 'Allow', 'consent');
      await popup.getByRole('button', { name: 'Allow' }).click();
      await popup.waitForURL(`${rpBase}/callback*`);
      assert.match((await popup.textContent('body')) ?? '', /me 403 insufficient_scope/);
      await popupContext.close();

      await donor.goto(`${base}/settings/apps`);
      await review(donor, 'connected-apps');
      await donor.getByRole('button', { name: 'Disconnect Match My Gift' }).click();
      await donor.waitForURL(/done=app_disconnected/);
      await donor.goto(`${rpBase}/me`);
      assert.match((await donor.textContent('body')) ?? '', /me 401/);
      await donorContext.close();
    } finally {
      app.close();
    }
  });

  /** A small app of its own, as a partner would write it: openid-client, PKCE, state and nonce; it calls the API with its access token. */
  async function relyingPartyServer(port: number, clientId: string, secret: string) {
    const rpBase = `http://localhost:${port}`;
    const config = await client.discovery(new URL(base), clientId, { redirect_uris: [`${rpBase}/callback`] }, client.ClientSecretBasic(secret), {
      execute: [client.allowInsecureRequests],
    });
    let pending = { verifier: '', state: '', nonce: '' };
    let accessToken = '';
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${accessToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const answer = (await response.json()) as { code?: string };
      return `${response.status}${answer.code === undefined ? '' : ` ${answer.code}`}`;
    };
    const server = createHttpServer((request, response) => {
      void (async () => {
        const url = new URL(request.url ?? '/', rpBase);
        if (url.pathname === '/login') {
          pending = { verifier: client.randomPKCECodeVerifier(), state: client.randomState(), nonce: client.randomNonce() };
          const to = client.buildAuthorizationUrl(config, {
            redirect_uri: `${rpBase}/callback`,
            scope: url.searchParams.get('scope') ?? 'openid',
            code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
            code_challenge_method: 'S256',
            state: pending.state,
            nonce: pending.nonce,
          });
          response.writeHead(302, { location: to.href }).end();
          return;
        }
        let lines: string[];
        if (url.pathname === '/callback') {
          const tokens = await client.authorizationCodeGrant(config, url, { pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce });
          accessToken = tokens.access_token;
          lines = [`me ${await call('GET', '/v1/users/me')}`, `donation ${await call('POST', '/v1/donations', { amount: 25, ein: EIN })}`];
        } else {
          lines = [`me ${await call('GET', '/v1/users/me')}`];
        }
        response
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(`<!doctype html><html lang="en"><title>Match My Gift</title><main><pre>${lines.join('\n')}</pre></main></html>`);
      })().catch((error: unknown) => response.writeHead(500).end(String(error)));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return server;
  }

  test("a donate link's button on another site, on a phone: signed in, confirmed, back there; a link to elsewhere refused", async () => {
    const origin = `http://127.0.0.1:${wheel.port}`;
    const link = (returnTo: string) =>
      `${base}/donate/${EIN}?${new URLSearchParams({ amount: '25', external_id: 'wheel-e2e', app: wheel.clientId, success_url: `${returnTo}/thanks`, exit_url: `${returnTo}/` }).toString()}`;
    const site = createHttpServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        request.url?.startsWith('/thanks') === true
          ? `<!doctype html><html lang="en"><head><title>Thanks</title></head><body><main><h1>Thank you</h1></main></body></html>`
          : `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>Giving Wheel</title></head><body><main><h1>Giving Wheel</h1>` +
              `<a class="almoner-donate" href="${link(origin).replaceAll('&', '&amp;')}">Give $25 to Khan Academy</a><script src="${base}/static/donate-button.js"></script></main></body></html>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(wheel.port, '127.0.0.1', resolve));
    try {
      const context = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true });
      const page = await context.newPage();
      await signUp(page, 'Wheel Donor', 'wheel-donor@example.org');
      await fundUser('Wheel Donor', '100');
      await page.goto(origin);
      const button = page.getByRole('link', { name: 'Give $25 to Khan Academy' });
      const box = await button.boundingBox();
      assert.ok(box !== null && box.height >= 44 && box.width <= PHONE.width, `the button is large enough to tap: ${JSON.stringify(box)}`);
      assert.deepEqual(await accessibilityProblems(await page.content()), [], 'the button on its page');
      await button.tap();
      await page.waitForURL(new RegExp(`^${base}/donate/${EIN}\\?`));
      await assert.doesNotReject(page.getByText('From a link of Giving Wheel').waitFor());
      await review(page, 'donate-link');
      await page.getByRole('button', { name: 'Donate' }).tap();
      await page.waitForURL(new RegExp(`^${origin}/thanks\\?donation_id=\\d+$`));
      const id = Number(new URL(page.url()).searchParams.get('donation_id'));
      assert.ok(id > 0);
      // The donor's dashboard has it.
      await page.goto(`${base}/dashboard`);
      await assert.doesNotReject(page.locator(`[data-donation="${id}"]`).first().waitFor());

      // A link that would send the donor to another site is refused, and leaves them here.
      await page.goto(link('https://elsewhere.example.com'));
      await assert.doesNotReject(page.getByRole('heading', { name: 'This donate link cannot be used' }).waitFor());
      assert.ok(page.url().startsWith(base), page.url());
      await review(page, 'donate-link-refused');
      await context.close();
    } finally {
      await new Promise<void>((resolve) => site.close(() => resolve()));
    }
  });

  test('the sign-in page, the reference and the problem codes, and no page broke its content security policy', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${base}/dashboard`);
    await page.waitForURL(/\/signin\?next=%2Fdashboard/);
    await review(page, 'signin');
    await page.getByLabel('Email').fill('ada@example.org');
    await page.getByLabel('Password').fill('a long and private passphrase');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard`);
    // The reference, the problem codes and the event catalogue, on a desk and a phone.
    for (const [path, name] of [
      ['/docs', 'reference'],
      ['/errors', 'errors'],
      ['/errors/insufficient_funds', 'error-code'],
      ['/docs/events', 'events'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await review(page, name);
    }
    process.stdout.write(`# widths at ${PHONE.width}px: ${phoneWidths.join(', ')}\n`);
    await context.close();
    assert.deepEqual(
      violations.filter((v) => /Content Security Policy|Refused to/i.test(v)),
      [],
    );
  });
});
