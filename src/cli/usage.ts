// The usage text, apart from the program: `almoner --version`, `almoner --help` and
// `almoner <command> --help` answer from here without loading the rest (bin/almoner.js).

export const USAGE: string = `Usage: almoner <command> [options]

Commands:
  serve [--workers N]        Start the API server (DATABASE_URL, PORT, HOST; see README); N processes share the port
  demo                       Load demo data if the database is empty, print a key, start the server
  migrate                    Bring the database schema up to date and exit
  check                      Verify every ledger invariant; exit 1 with a report if one fails
  --version                  The release of Almoner (and of Node) this is

  users create --name NAME [--slug SLUG] [--city CITY] [--private] [--key-name NAME] [--test]
               [--email EMAIL --password PASSWORD | --invite]
                             Create a user with a fund and print a new API key (--test: a sandbox key;
                             --email and --password: they can sign in to the web app; --invite: a
                             one-time link for them to choose their sign-in)
  users list [--page N]      Users with their funds
  users suspend ID | users reactivate ID
  users statement ID         Balances and every journal line of the user's fund
  users invite ID            A one-time link for the user to choose their sign-in (email, password)
  users export ID            Everything stored about a user (and their sandbox twin), as JSON
  users forget ID --yes      Pseudonymise a user for good; the ledger keeps its amounts (audited)

  contributions record --user ID --type TYPE --units U --valuation V --currency C [--status S] [--frequency F]
  contributions advance ID --to pending|success|failed
  contributions awaiting [--reference REF]
                             Declared contributions waiting for their money, oldest first
  contributions receive REF|ID --amount DOLLARS | --units U --valuation V [--source TEXT] [--force]
                             Record what arrived for a declaration (cash: --amount DOLLARS; stock: the
                             shares and the day's price, --source where it came from); it becomes pending
                             with that money. More than 10% away from the declaration is refused without --force
  contributions correct-value ID --amount DOLLARS | --units U --valuation V [--source TEXT] --reason TEXT
                             The value received was wrong: set what really came; the difference moves by its own
                             journal entry and a corrected receipt replaces the last one (audited)
  contributions correct-receipt ID --reason TEXT
                             A new receipt that replaces the newest one and says why; both remain

  donations waiting [--status S] [--sandbox]
                             The donations waiting for approval (or in status S), oldest first, with donor and organisation
  donations approve|pay|mail-check|cash|void ID...
  donations reject ID... --reason TEXT
  donations pay-all-approved Pay every approved donation

  portfolio invest|liquidate --user ID --amount DOLLARS
  portfolios list | retire ID
  portfolios create --name NAME --risk low|medium|high --fee-bps N --holdings SYMBOL:WEIGHT,... [--description TEXT]
                             The portfolios donors may choose: what each holds (weights sum to 100), its annual fee
  prices import FILE         Prices from a CSV whose header names symbol, price and time; a bad, duplicate or
                             future row refuses the whole file
  valuation run [--at TIME]  Every portfolio's unit price from its holdings' prices at TIME (default now), then
                             every invested fund valued, a round of 2,000 funds at a time
  valuation finish           Finish the valuation a crash or a stopped server left running
  deaths list [--status recorded|approved]
  deaths record --user ID --document REFERENCE
                             Record the death of a fund's holder (audited); nothing happens until a second
                             operator (ALMONER_OPERATOR) runs: deaths approve ID, and the fund's successor plan runs
  ledger checkpoint [--book live|test]
                             Take the journal's new entries into its log and sign a checkpoint now (rules §26)
  ledger key                 The log's verifier key (what verifiers are given) and the book's origin
  ledger export --out FILE [--book B]    The book's log as JSON lines (leaf_index, encoded, chain_hash)
  ledger cosign --size N --file F [--book B]
                             Keep the cosignatures in F of a configured witness (LEDGER_WITNESSES) on checkpoint N
  verify PROOF.json --key KEY [--witness KEY ...] [--threshold N]
                             Check a donation's proof (GET /v1/donations/ID/proof) offline with the log's key
  verify --export FILE --checkpoints FILE --origin ORIGIN --key KEY
                             Check an exported log against checkpoints published before (a JSON array, or the
                             page GET /v1/ledger/checkpoints answers); names the first entry that differs
  scheduler run [--date YYYY-MM-DD]   Make the recurring donations due by the date (default today)
  receipts repair                     Issue the receipt of every succeeded contribution without one (an older
                                      release's node made it succeed); servers do it every minute
  retention run                       Delete what is past its RETAIN_* age (idempotency keys, expired
                                      sessions, failed sign-ins, events); servers do it hourly
  nonprofits import [FILES_OR_FOLDERS...] [--zips FILE] [--revocations FILE] [--pub78 FILE] [--sdn FILE] [--as-of DATE]
                             Import IRS EO BMF files (.csv or .csv.gz) into the directory, and the due diligence
                             lists (the IRS auto-revocation list and Publication 78 data as published, .txt or .gz;
                             the OFAC SDN list, sdn.csv), each a snapshot as of DATE (default today); then
                             screen every organisation against the lists
  nonprofits download [--to DIR] [--mirror URL]
                             Fetch the IRS master files and the three lists from their official addresses
                             (default ./data/irs), ready for nonprofits import
  nonprofits screen          Screen every organisation against the current lists again
  nonprofits reviews         Close name matches against the sanctions list waiting for an operator
  nonprofits review ID --clear|--confirm --note TEXT
                             Decide one: not the listed party (may be paid), or it is (refused from now on)
  nonprofits claims [--status pending|unconfirmed|approved|rejected]
                             People's claims to act for an organisation (by default those waiting for a decision)
  nonprofits claim ID --approve|--reject --note TEXT
                             Decide one: the person sees the organisation's payments and gives its bank details
  nonprofits bank-details EIN --routing R --account A --holder NAME [--type checking|savings]
                             An organisation's bank details for ACH (sealed with PAYEE_DATA_KEY; ACH after
                             PAYEE_COOLING_OFF_DAYS, checks until then); with PAYMENTS_TWO_OPERATORS they wait
  nonprofits bank-details approve ID
                             A second operator puts bank details another one typed in force
  payments run open --date YYYY-MM-DD
                             Open the payment run of a date: approved donations of still-eligible
                             organisations, one payment each (ACH or check); ineligible ones rejected
  payments run list | show ID
  payments run approve ID    A second operator approves an open run (needed to submit with PAYMENTS_TWO_OPERATORS)
  payments run withdraw ID --reason TEXT
                             Withdraw an open run: its donations stay approved and wait for another run
  payments run submit ID     Screen each organisation again, leave out what no longer clears, send the rest
  payments run ach|checks|positive-pay|remittances ID --out FILE
                             The run's NACHA file, check register, positive-pay file or remittance advice (PDF)
  payments return ID --code R03 | cash ID | void ID --reason TEXT
                             A payment's outcome: an ACH return, a check cashed or voided (money back to donors)
  payments returns --file F  Record the returns a bank's NACHA return file lists
  payments checks-paid --file F
                             Record the checks a bank's paid-checks file lists (CSV: check_number, amount, paid_date)
  payments exceptions [list] | resolve ID --as recovered|charged --note TEXT
                             Checks the bank paid after they were voided; resolve one once: recovered, or charged
  payments void-stale [--as-of YYYY-MM-DD]
                             Void every check not cashed within CHECK_STALE_DAYS of its date (as of a past day if given)
  admin token create --name NAME [--operator PERSON] [--days N]
                                      An operator token for /admin/v1 (shown once); expires after N days if given
  admin token list                    Operator tokens: state, expiry, last use (never the token)
  admin token revoke ID               Revoke an operator token at once
  apps list                  Apps registered for Login with Almoner: state, book, donors connected
  apps disable CLIENT_ID [--reason TEXT] | apps enable CLIENT_ID
                             Refuse an app's sign-ins, tokens and id tokens at once (audited), or allow them again
  apps rotate-signing-key    A new key signs id tokens (on each node after its restart); older ones verify until retired
  webhooks status            Events waiting to be relayed; webhook deliveries and mail waiting, failed; failing endpoints
  webhooks deliver [--once]  Relay events and send webhooks and mail (a node that only delivers; servers do it too)
  webhooks replay --endpoint ID --since DATE
                             Send an endpoint's events since DATE again (with their first webhook-id)
  mail list [--limit N]      The newest messages: state, recipient, subject, and the .eml file without SMTP_URL
  db backup --to FILE        An online, consistent copy of the SQLite database (the server may keep running)
  db copy --from sqlite:PATH --to postgres://...
                             Move a whole platform from SQLite to an empty PostgreSQL database, verified

The users, contributions, donations, portfolio and payments commands act on live users and money only;
add --sandbox to act on the sandbox twins' instead (sandbox and live are two books).
`;

/**
 * The lines of USAGE for one command (`almoner payments --help`): each line that starts with it,
 * with the description lines under it. Undefined when USAGE names no such command.
 */
export function usageOf(command: string): string | undefined {
  const lines = USAGE.split('\n');
  const out: string[] = [];
  let taking = false;
  for (const line of lines) {
    if (/^ {2}\S/.test(line)) taking = line.slice(2).split(' ')[0] === command;
    else if (!/^ {3,}\S/.test(line)) taking = false;
    if (taking) out.push(line);
  }
  return out.length === 0 ? undefined : `Usage: almoner ${command} ...\n\n${out.join('\n')}\n`;
}
