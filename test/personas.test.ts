// Four people on the demo, as `npm run demo` starts it, each on a phone (390 x 844) in Chromium:
// a donor's spouse invited into the family fund, asking to give and approved; an integrator whose
// webhook delivery verifies with the standardwebhooks library and is byte for byte what the
// platform says it delivers (what `alms listen` forwards); a charity's finance person who claims
// the organisation, gives its bank details and reads its remittance after the operator's payment
// run; and the operator, who runs that payment run from the CLI as the README says.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { freePort } from '../bench/processes.ts';
import { runCli, until } from './harness.ts';
import { pdfText } from './pdf.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const BIN = new URL('../bin/almoner.js', import.meta.url).pathname;
const PHONE = { width: 390, height: 844 };
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const MERCY_CORPS = '911148123';
const available = existsSync(CHROMIUM);
if (!available) {
  if (process.env.ALMONER_REQUIRE_BROWSER === '1') throw new Error(`Chromium is required here but ${CHROMIUM} does not exist (apt-get install chromium)`);
  process.stderr.write(`\n*** ${CHROMIUM} not found: the persona walk is SKIPPED (apt-get install chromium, or set CHROMIUM_PATH). ***\n\n`);
}

describe('four people on the demo, on a phone', { skip: !available }, () => {
  let dir: string;
  let demo: ChildProcess;
  let base: string;
  let database: string;
  let adaKey: string;
  let browser: Browser;
  let printed = '';
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  let receiver: Server;
  let receiverPort: number;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'almoner-personas-'));
    const port = await freePort();
    base = `http://localhost:${port}`;
    database = `sqlite:${join(dir, 'almoner.sqlite')}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: database,
      PORT: String(port),
      PUBLIC_URL: base,
      MAIL_DIR: join(dir, 'mail'),
      NOTIFY_INTERVAL_MS: '200',
      // The integrator's receiver listens on this machine.
      WEBHOOK_ALLOW_PRIVATE: '1',
      SIGN_UPS_PER_MINUTE: '100',
      NO_COLOR: '1',
    };
    for (const name of Object.keys(env)) if (name.startsWith('SPONSOR_') || name.startsWith('ACH_') || name.startsWith('PAYEE_DATA_KEY')) delete env[name];
    demo = spawn(process.execPath, [BIN, 'demo'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      demo.stdout?.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        if (printed.includes('Stop with Ctrl-C.')) resolve();
      });
      demo.on('exit', (code) => reject(new Error(`the demo exited (${code}): ${printed}`)));
    });
    adaKey = /Demo API key for Ada Lovelace \(shown once\): (alm_live_\S+)/.exec(printed)?.[1] ?? '';
    assert.ok(adaKey !== '', printed);
    receiverPort = await freePort();
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--host-resolver-rules=MAP localhost 127.0.0.1'],
    });
  });

  after(async () => {
    await browser?.close();
    receiver?.close();
    demo?.kill('SIGTERM');
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const phone = (): Promise<BrowserContext> => browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });

  /** The page fits the phone and axe-core finds no WCAG 2 A or AA problem on it. */
  async function fits(page: Page, name: string): Promise<void> {
    const width = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width, `${name} is ${width}px wide on a ${PHONE.width}px phone`);
    const checker = await browser.newContext({ bypassCSP: true });
    const copy = await checker.newPage();
    await copy.setContent(await page.content(), { waitUntil: 'load' });
    await copy.evaluate(AXE_SOURCE);
    const problems = await copy.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run(o: unknown): Promise<{ violations: Array<{ id: string }> }> } }).axe;
      return (await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } })).violations.map((v) => v.id);
    });
    await checker.close();
    assert.deepEqual(problems, [], `accessibility problems on ${name}`);
  }

  /** The link of the newest message of `kind` (its file name's end) to `to`, as the demo wrote it. */
  async function mailedLink(kind: string, to: string, pattern: RegExp): Promise<string> {
    let link: string | undefined;
    await until(`a ${kind} message to ${to}`, async () => {
      const mailDir = join(dir, 'mail');
      for (const file of existsSync(mailDir) ? readdirSync(mailDir).filter((f) => f.endsWith(`-${kind}.eml`)) : []) {
        const mail = await simpleParser(readFileSync(join(mailDir, file)));
        const address = mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.address : undefined;
        if (address === to) link = pattern.exec(mail.text ?? '')?.[0] ?? link;
      }
      return link !== undefined;
    });
    return link as string;
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${base}/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard/);
  }

  async function signUp(page: Page, name: string, email: string): Promise<void> {
    await page.getByLabel('Your name').fill(name);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a long and private passphrase');
    await page.getByRole('button', { name: 'Create my account' }).click();
    const back = await (async () => {
      await page.waitForLoadState();
      return page.url();
    })();
    await page.goto(await mailedLink('address_confirmation', email, new RegExp(`${base}/account/confirm/[A-Za-z0-9_-]+`)));
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page.getByText('Your address is confirmed').waitFor();
    await page.goto(back);
  }

  test("the donor's spouse: invited, asks to give, approved; the integrator's delivery is what the platform says it sends", async () => {
    // The integrator's endpoint, on Ada's fund, before anything happens there.
    const endpoint = (await (
      await fetch(`${base}/v1/webhook_endpoints`, {
        method: 'POST',
        headers: { 'x-api-key': adaKey, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hooks` }),
      })
    ).json()) as { id: number; secret: string };
    assert.match(endpoint.secret, /^whsec_/);

    const adaContext = await phone();
    const ada = await adaContext.newPage();
    await signIn(ada, 'ada@example.org', 'give-generously');
    await ada.goto(`${base}/fund`);
    await ada.getByLabel('Their e-mail address').fill('charles@example.org');
    await ada.getByLabel('Role', { exact: true }).selectOption('family');
    await ada.getByRole('button', { name: 'Send the invitation' }).click();
    await ada.getByText('The invitation is on its way').waitFor();
    await fits(ada, 'fund');

    const charlesContext = await phone();
    const charles = await charlesContext.newPage();
    await charles.goto(await mailedLink('fund_invitation', 'charles@example.org', new RegExp(`${base}/join/[A-Za-z0-9_-]+`)));
    await charles.getByText('Ada Lovelace invites you').waitFor();
    await charles.getByRole('link', { name: /Sign up with/ }).click();
    assert.equal(await charles.getByLabel('Email').inputValue(), 'charles@example.org', 'the sign-up is prefilled with the invited address');
    await signUp(charles, 'Charles Babbage', 'charles@example.org');
    await charles.getByRole('button', { name: 'Accept and give together' }).click();
    await charles.getByText('you give together now').waitFor();
    await charles.goto(`${base}/dashboard`);
    await fits(charles, 'dashboard-family');
    assert.equal(await charles.getByRole('button', { name: 'Donate' }).count(), 0, 'a family member asks, and does not donate');
    await charles.locator('#f-donate-ein').fill(MERCY_CORPS);
    await charles.getByLabel('Amount (USD)').first().fill('25');
    await charles.getByRole('button', { name: 'Request' }).click();
    await charles.getByText('Your request is sent').waitFor();

    await ada.goto(`${base}/fund`);
    await ada.getByText('Charles Babbage asks to give $25.00').waitFor();
    await ada.getByRole('button', { name: 'Approve' }).click();
    await ada.getByText('The request is approved').waitFor();
    await adaContext.close();
    await charlesContext.close();

    // The integrator: the approval reached the endpoint, signed; it verifies, and it is byte for byte
    // the delivery the platform renders for that event (GET /v1/events/:id/delivery, what `alms listen` forwards).
    // (A delivery carries its object as it was when it was sent; the platform renders it as it is now:
    // the approval's delivery, the last change, is compared.)
    const approved = () => received.find((r) => /"status":"scheduled"/.test(r.body) && /"amount":25[,}]/.test(r.body));
    await until('a delivery of the approved request', () => approved() !== undefined);
    const delivery = approved() as { headers: IncomingHttpHeaders; body: string };
    const verified = new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>) as { type: string };
    assert.match(verified.type, /^donation\./);
    const events = (await (await fetch(`${base}/v1/events`, { headers: { 'x-api-key': adaKey } })).json()) as { items: Array<{ id: number }> };
    let same: { webhook_id: string; body: string } | undefined;
    for (const e of events.items) {
      const rendered = (await (await fetch(`${base}/v1/events/${e.id}/delivery`, { headers: { 'x-api-key': adaKey } })).json()) as { webhook_id: string; body: string };
      if (rendered.webhook_id === delivery.headers['webhook-id']) same = rendered;
    }
    assert.ok(same !== undefined, 'the delivered event is among the fund holder’s events');
    assert.equal(same.body, delivery.body, 'byte for byte what was delivered');
  });

  test('the charity claims Mercy Corps, gives bank details; the operator runs the payment run; the charity reads its remittance', async () => {
    const context = await phone();
    const page = await context.newPage();
    await page.goto(`${base}/signup`);
    await signUp(page, 'Fran Finance', 'finance@mercycorps.demo.test');
    await page.goto(`${base}/charities/${MERCY_CORPS}/claim`);
    await page.getByRole('heading', { name: /Claim Mercy Corps/ }).waitFor();
    await fits(page, 'claim');
    const website = page.getByLabel(/website/i);
    if ((await website.count()) > 0) await website.first().fill('mercycorps.demo.test');
    await page.getByLabel('Your e-mail address at the organisation').fill('finance@mercycorps.demo.test');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText('A link is on its way').waitFor();
    await page.goto(await mailedLink('charity_claim', 'finance@mercycorps.demo.test', new RegExp(`${base}/charities/claims/confirm/[A-Za-z0-9_-]+`)));
    await page.getByRole('button', { name: 'Confirm the claim' }).click();
    await page.getByText('Your claim is confirmed').first().waitFor();

    // The operator, from the CLI on the demo's database: the claim, then the README's payment run.
    const claims = await runCli(['nonprofits', 'claims', '--status', 'pending'], database);
    assert.match(claims.stdout, /finance@mercycorps\.demo\.test/);
    const claimId = new RegExp(`^\\s*(\\d+)\\s+EIN ${MERCY_CORPS}`, 'm').exec(claims.stdout)?.[1];
    assert.ok(claimId !== undefined, claims.stdout + claims.stderr);
    assert.equal((await runCli(['nonprofits', 'claim', claimId, '--approve', '--note', 'the demo'], database)).code, 0);

    await page.goto(`${base}/charities/${MERCY_CORPS}/manage`);
    await page.getByLabel("Account holder's name").fill('Mercy Corps');
    await page.getByLabel('Routing number').fill('091000019');
    await page.getByLabel('Account number').fill('123456789');
    await page.getByRole('button', { name: 'Save the bank details' }).click();
    await page.getByText('The bank details are saved').waitFor();
    await fits(page, 'manage');

    const tomorrow = new Date(Date.now() + 86_400_000);
    while (tomorrow.getUTCDay() === 0 || tomorrow.getUTCDay() === 6) tomorrow.setUTCDate(tomorrow.getUTCDate() + 1);
    const opened = await runCli(['payments', 'run', 'open', '--date', tomorrow.toISOString().slice(0, 10)], database);
    assert.equal(opened.code, 0, opened.stderr);
    const runId = /Payment run (\d+)/.exec(opened.stdout)?.[1] as string;
    assert.match(opened.stdout, /Mercy Corps/);
    const submitted = await runCli(['payments', 'run', 'submit', runId], database);
    assert.equal(submitted.code, 0, submitted.stderr);

    await page.reload();
    await page
      .getByRole('table', { name: /The grants of payment/ })
      .first()
      .waitFor();
    const href = await page.getByRole('link', { name: 'Remittance advice (PDF)' }).first().getAttribute('href');
    const pdf = await context.request.get(`${base}${href}`);
    assert.equal(pdf.status(), 200);
    assert.match(pdfText(await pdf.body()), /Ada Lovelace/);
    await context.close();
  });
});
