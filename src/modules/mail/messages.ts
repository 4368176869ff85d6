// The messages of rules §15, each as plain text and HTML. Every value a
// person typed is escaped in the HTML; links are built from PUBLIC_URL by the
// caller and only ever point there.
import { escapeHtml } from '../../shared/escape.ts';
import { usdOfDollars } from '../../shared/money.ts';

export interface Message {
  subject: string;
  text: string;
  html: string;
}

const usd = (dollars: number) => usdOfDollars(dollars);

/** A message from paragraphs (text) and an optional button (a link). */
function compose(subject: string, paragraphs: string[], link?: { url: string; label: string }, footer?: string): Message {
  const text = [...paragraphs, ...(link === undefined ? [] : [`${link.label}: ${link.url}`]), ...(footer === undefined ? [] : ['--', footer])].join('\n\n');
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#1a2633;max-width:36rem">
${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${link === undefined ? '' : `<p><a href="${escapeHtml(link.url)}" style="background:#0b5c55;color:#fff;padding:.6rem 1rem;border-radius:.3rem;text-decoration:none">${escapeHtml(link.label)}</a></p>`}
${footer === undefined ? '' : `<p style="color:#5b6670;font-size:.85rem">${escapeHtml(footer)}</p>`}
</body></html>`;
  return { subject, text, html };
}

const FOOTER = 'Almoner: give from your fund to any US non-profit.';

export function giftToRecipient(m: { giverName: string; recipientName: string; amount: number; message: string | null; url: string }): Message {
  return compose(
    `${m.giverName} sent you a gift of ${usd(m.amount)}`,
    [
      `Hello ${m.recipientName},`,
      `${m.giverName} sent you ${usd(m.amount)} to give to a charity of your choice.`,
      ...(m.message === null ? [] : [`Their message: "${m.message}"`]),
    ],
    { url: m.url, label: 'Open your gift' },
    FOOTER,
  );
}

export function giftOutcomeToGiver(m: { recipientName: string; amount: number; outcome: 'accepted' | 'claimed' | 'denied'; url: string }): Message {
  const what = {
    accepted: `${m.recipientName} accepted your gift of ${usd(m.amount)} into their own fund.`,
    claimed: `${m.recipientName} sent your gift of ${usd(m.amount)} to a non-profit.`,
    denied: `${m.recipientName} declined your gift of ${usd(m.amount)}; the money is back in your fund.`,
  }[m.outcome];
  const subject = { accepted: 'was accepted', claimed: 'went to a non-profit', denied: 'was declined' }[m.outcome];
  return compose(`Your gift to ${m.recipientName} ${subject}`, [what], { url: m.url, label: 'See your dashboard' }, FOOTER);
}

export function donationCompleted(m: { nonProfit: string; amount: number; url: string }): Message {
  return compose(
    `Your donation of ${usd(m.amount)} to ${m.nonProfit} was paid`,
    [`Your donation of ${usd(m.amount)} to ${m.nonProfit} has been paid. Thank you.`],
    { url: m.url, label: 'See your donations' },
    FOOTER,
  );
}

export function checkMailed(m: { nonProfit: string; amount: number; url: string }): Message {
  return compose(
    `Your donation of ${usd(m.amount)} to ${m.nonProfit} was mailed as a check`,
    [`Your donation of ${usd(m.amount)} to ${m.nonProfit} has been paid by a check mailed to the organisation. Thank you.`],
    { url: m.url, label: 'See your donations' },
    FOOTER,
  );
}

export function grantReturned(m: { nonProfit: string; amount: number; url: string; why: string }): Message {
  return compose(
    `Your donation of ${usd(m.amount)} to ${m.nonProfit} came back`,
    [`The payment of your donation of ${usd(m.amount)} to ${m.nonProfit} did not reach it: ${m.why}.`, 'The money is back in your fund, available to give again.'],
    { url: m.url, label: 'See your fund' },
    FOOTER,
  );
}

export function contributionReceipt(m: { receipt: string; what: string; url: string; sponsor: string }): Message {
  return compose(
    `Receipt ${m.receipt} for your contribution`,
    [`Your contribution of ${m.what} has cleared and is in your fund.`, `Receipt ${m.receipt} from ${m.sponsor} is ready: keep it for your tax records.`],
    { url: m.url, label: 'View and download the receipt' },
    FOOTER,
  );
}

export function passwordReset(m: { url: string }): Message {
  return compose(
    'Choose a new Almoner password',
    [
      'Someone (we hope you) asked to choose a new password for your Almoner account.',
      'The link works once, for one hour. Using it signs you out everywhere else.',
      'If you did not ask, ignore this message: your password stays as it is.',
    ],
    { url: m.url, label: 'Choose a new password' },
    FOOTER,
  );
}

export function confirmAddress(m: { email: string; url: string; change: boolean }): Message {
  return compose(
    m.change ? 'Confirm your new Almoner address' : 'Confirm your Almoner address',
    [
      m.change
        ? `Someone (we hope you) asked to change the address of an Almoner account to ${m.email}.`
        : `Someone (we hope you) opened an Almoner account with ${m.email}, or signed in to one.`,
      'Confirm it by opening the link while signed in to that account: until then, nothing sent to this address (gifts, invitations to a fund) is handed to it.',
      'The link works once, for 48 hours. If you did not ask, ignore this message.',
    ],
    { url: m.url, label: 'Confirm this address' },
    FOOTER,
  );
}

export function addressChanging(m: { to: string }): Message {
  return compose(
    'Your Almoner address is changing',
    [
      `Someone signed in to your Almoner account asked to change its address to ${m.to}. It changes once a link mailed there is followed.`,
      'If it was not you, change your password now: it ends every session of the account.',
    ],
    undefined,
    FOOTER,
  );
}

export function claimConfirmation(m: { nonProfit: string; person: string; url: string }): Message {
  return compose(
    `Confirm that you act for ${m.nonProfit}`,
    [
      `${m.person} asked on Almoner to act for ${m.nonProfit}: to see the grants it receives and to give its bank details.`,
      'If that is you, follow the link while signed in to that account within a day; an operator then checks the claim.',
      'If it is not you, ignore this message: nothing happens without the link.',
    ],
    { url: m.url, label: 'Confirm the claim' },
    FOOTER,
  );
}

export function claimDecided(m: { nonProfit: string; approved: boolean; url: string }): Message {
  return compose(
    m.approved ? `You now act for ${m.nonProfit} on Almoner` : `Your claim for ${m.nonProfit} was not approved`,
    m.approved
      ? [`An operator approved your claim: you can see the grants and payments ${m.nonProfit} receives and give its bank details for direct deposit.`]
      : [`An operator did not approve your claim to act for ${m.nonProfit}. Write to the platform's operators if you think this is wrong.`],
    m.approved ? { url: m.url, label: `Manage ${m.nonProfit}` } : undefined,
    FOOTER,
  );
}

export function bankDetailsChanged(m: { nonProfit: string; account: string; by: string; usableFrom: string; url: string }): Message {
  return compose(
    `The bank details of ${m.nonProfit} were changed`,
    [
      `${m.by} set new bank details for ${m.nonProfit}: account ${m.account}.`,
      `Direct deposits go to them from ${m.usableFrom}; until then the organisation is paid by check.`,
      'If this change was not made by someone at your organisation, tell the platform operators at once.',
    ],
    { url: m.url, label: 'See the bank details' },
    FOOTER,
  );
}

export function bankDetailsChangedUnseen(m: { nonProfit: string; ein: string; account: string; by: string; usableFrom: string }): Message {
  return compose(
    `Bank details of ${m.nonProfit} changed by its only claimant`,
    [
      `${m.by}, the only person who acts for ${m.nonProfit} (EIN ${m.ein}), changed its bank account to ${m.account}. No one else of the organisation could be told.`,
      `Payments by ACH go there from ${m.usableFrom}. If this looks wrong, hold the organisation's payments and reach it by a number on file, not one the claimant gave.`,
    ],
    undefined,
    FOOTER,
  );
}

export function bankDetailsSuspended(m: { nonProfit: string; account: string; why: string }): Message {
  return compose(
    `Payments to ${m.nonProfit} go by check until its bank details are given again`,
    [
      `A payment by ACH to ${m.nonProfit}'s account ${m.account} came back (${m.why}): those bank details are suspended.`,
      'Until someone who acts for the organisation gives new bank details, its payments are mailed as checks.',
    ],
    undefined,
    FOOTER,
  );
}

export function bankDetailsCorrected(m: { nonProfit: string; account: string; why: string; changed: boolean }): Message {
  return compose(
    m.changed ? `${m.nonProfit}'s bank details were corrected by its bank` : `${m.nonProfit}'s bank sent a notification of change`,
    [
      `The bank that holds ${m.nonProfit}'s account ${m.account} sent a notification of change (${m.why}).`,
      m.changed
        ? 'The corrected details are in force for the next payments. If they look wrong, give the bank details again.'
        : 'The bank details were left as they are; an operator looks at what the bank said.',
    ],
    undefined,
    FOOTER,
  );
}

export function paymentSent(m: { nonProfit: string; amount: number; grants: number; method: 'ach' | 'check'; url: string }): Message {
  return compose(
    `${m.nonProfit}: a payment of ${usd(m.amount)} is on its way`,
    [
      `A payment of ${usd(m.amount)} for ${m.grants} grant${m.grants === 1 ? '' : 's'} was sent to ${m.nonProfit} ${m.method === 'ach' ? 'by direct deposit' : 'as a check by mail'}.`,
      'Its remittance advice names each grant, its donor as they chose to be known, and what it is for.',
    ],
    { url: m.url, label: 'See the payment and its remittance' },
    FOOTER,
  );
}

export function fundInvitation(m: { inviter: string; fund: string; role: string; roleWords: string; url: string; days: number }): Message {
  return compose(
    `${m.inviter} invited you to give together: ${m.fund}`,
    [
      `${m.inviter} invited you to join ${m.fund} as ${m.role === 'family' ? 'a family member' : `an ${m.role}`}: a member who ${m.roleWords}.`,
      `Accept with your own account (or make one with this address). The link works for ${m.days} days, once.`,
    ],
    { url: m.url, label: 'See the invitation' },
    FOOTER,
  );
}

export function donationRequested(m: { requester: string; fund: string; nonProfit: string; amount: number; url: string; days: number }): Message {
  return compose(
    `${m.requester} asks to give ${usd(m.amount)} to ${m.nonProfit}`,
    [
      `${m.requester} asks to give ${usd(m.amount)} from ${m.fund} to ${m.nonProfit}.`,
      `No money is held until an organizer or advisor approves it. The request lapses after ${m.days} days.`,
    ],
    { url: m.url, label: 'Approve or decline' },
    FOOTER,
  );
}

export function requestDecided(m: { decider: string; nonProfit: string; amount: number; approved: boolean; reason: string | null; url: string }): Message {
  return compose(
    `Your request to give ${usd(m.amount)} to ${m.nonProfit} was ${m.approved ? 'approved' : 'declined'}`,
    [
      m.approved
        ? `${m.decider} approved your request to give ${usd(m.amount)} to ${m.nonProfit}. It is on its way like any donation of the fund.`
        : `${m.decider} declined your request to give ${usd(m.amount)} to ${m.nonProfit}.`,
      ...(m.reason === null ? [] : [`Their reason: "${m.reason}"`]),
    ],
    { url: m.url, label: 'See the fund' },
    FOOTER,
  );
}
