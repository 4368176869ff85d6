// Where a person's data lives (docs/operating.md, "Data of a person"): every
// table of the schema, the columns of it that hold a person's data, and what
// forgetting them does there. A table not named here, or a column that looks
// personal (its name says name, email, note, address, payload...) and is
// classified neither way, fails the privacy test: a new place for personal
// data needs its rule before it lands.

export interface PersonalData {
  /** Columns that hold a person's data. */
  personal: readonly string[];
  /** Columns whose names look personal but hold none (what they hold instead is in `forget`). */
  notPersonal?: readonly string[];
  /** What forgetting a person does to this table (or why it holds nothing of theirs). */
  forget: string;
  /** Kept when a person is forgotten, by a rule stronger than forgetting (the sponsor's tax records). */
  keptByLaw?: true;
}

export const PERSONAL_DATA: Readonly<Record<string, PersonalData>> = {
  accounts: { personal: ['email', 'password_hash'], notPersonal: ['email_confirmed_at'], forget: 'deleted: their sign-in' },
  address_confirmations: { personal: ['email'], forget: 'deleted: the links that proved their addresses' },
  admin_tokens: { personal: [], notPersonal: ['name'], forget: "operators' tokens: nothing of a donor" },
  api_keys: { personal: ['name'], forget: 'revoked and renamed' },
  app_connections: { personal: [], forget: 'ended, with every token of their grant' },
  app_spending: { personal: [], forget: 'amounts only: kept' },
  check_runs: { personal: [], forget: 'no person in it' },
  diligence_lists: { personal: [], forget: 'records of the lists imported: no person in them' },
  apps: {
    personal: ['name', 'redirect_uris', 'logo_uri'],
    notPersonal: ['disabled_reason', 'secret_hash'],
    forget: 'the apps they registered: disabled, named "Deleted app", addresses removed',
  },
  audit_log: { personal: ['before', 'after'], forget: 'entries about them keep only that they were pseudonymised' },
  auth_epoch: { personal: [], forget: 'a counter' },
  causes: { personal: [], notPersonal: ['name'], forget: 'the catalogue of causes' },
  contributions: { personal: ['metadata'], notPersonal: ['valuation_source', 'declared_cents'], forget: 'amounts and statuses kept; metadata removed' },
  directory_epoch: { personal: [], forget: 'a counter' },
  directory_top: { personal: [], forget: 'the directory' },
  directory_vocabulary: { personal: [], forget: 'the directory' },
  donation_counts: { personal: [], forget: 'counts: their public count becomes 0' },
  donations: {
    personal: ['note', 'private_memo', 'designation', 'dedication', 'metadata'],
    notPersonal: ['rejection_reason'],
    forget: 'notes, memos, designations, dedications and metadata removed, made private and anonymous to the charity; amounts kept',
  },
  events: { personal: [], notPersonal: ['data'], forget: 'statuses and ids only: kept' },
  follows: { personal: [], forget: 'deleted, both ways' },
  fund_causes: { personal: [], forget: 'deleted' },
  funds: { personal: ['name', 'summary'], forget: 'renamed, summary removed' },
  gifts: {
    personal: ['name', 'email', 'message', 'metadata'],
    notPersonal: ['recipient_user_id'],
    forget: 'the gifts they gave, received or that were sent to their address: name "Deleted", address and message removed',
  },
  idempotency_keys: { personal: ['response_body'], notPersonal: ['request_hash'], forget: 'deleted: cached answers hold their notes and names' },
  import_runs: { personal: [], notPersonal: ['summary'], forget: 'directory imports' },
  invitations: { personal: [], forget: 'deleted' },
  journal_entries: { personal: [], notPersonal: ['memo', 'entry_hash'], forget: 'the journal: fixed memos and amounts, kept, with the hashes that prove them' },
  ledger_accounts: { personal: [], forget: 'balances: kept' },
  ledger_places: { personal: [], notPersonal: ['chain_hash'], forget: "the journal's places in its log: kept, with the hashes that prove them" },
  ledger_waiting: { personal: [], notPersonal: ['entry_hash'], forget: 'entries waiting for their place in the log: kept' },
  mail_outbox: {
    personal: ['recipient', 'subject', 'text', 'html', 'last_error'],
    forget: 'mail to their address, or about their objects and the gifts they received: deleted, with its .eml file',
  },
  non_profit_words: { personal: [], forget: 'the directory' },
  charity_claims: { personal: ['email'], notPersonal: ['decision_note', 'token_hash', 'website_on_file'], forget: 'deleted: they no longer act for the organisation' },
  portfolios: { personal: [], notPersonal: ['name', 'description'], forget: "the sponsor's portfolios: no person in them" },
  prices: { personal: [], forget: 'market prices: no person in them' },
  valuations: { personal: [], notPersonal: ['after_fund_id'], forget: 'valuations of the portfolios: no person in them (after_fund_id: how far its rounds have got)' },
  fund_allocations: { personal: [], forget: 'a choice of portfolio: kept with the fund' },
  fund_units: { personal: [], forget: 'units: amounts, kept' },
  exchanges: { personal: [], forget: 'changes of portfolio: kept' },
  investments: { personal: [], forget: 'amounts: kept' },
  fund_valuations: { personal: [], forget: 'amounts: kept' },
  monthly_fees: { personal: [], forget: 'amounts: kept' },
  fund_members: {
    personal: ['email'],
    notPersonal: ['token_hash', 'ended_by'],
    forget: 'their memberships, the invitations to them and the memberships of their own fund end; their address removed',
  },
  member_roles: { personal: [], forget: 'who held which role when: kept (the check of who moved money reads it)' },
  successor_lines: { personal: ['email'], forget: 'lines naming their address removed' },
  death_records: { personal: ['document_reference'], forget: 'the document reference replaced by "forgotten"' },
  portfolio_valuations: { personal: [], forget: 'unit prices: no person in them' },
  payee_accounts: { personal: [], notPersonal: ['holder', 'account_sealed', 'account_last4'], forget: "organisations' bank details (sealed): no donor in them" },
  platform_settings: { personal: [], notPersonal: ['name', 'value'], forget: "the platform's own settings (its address): no person in them" },
  payment_exceptions: { personal: [], notPersonal: ['note'], forget: "the bank's exceptions to the sponsor's payments: no donor in them" },
  payment_grants: { personal: [], forget: 'amounts and donation ids: kept (the sponsor pays from its books)' },
  payment_runs: { personal: [], notPersonal: ['withdraw_reason'], forget: "operators' runs and why one was withdrawn: no donor in them" },
  payments: { personal: [], notPersonal: ['payee', 'address'], forget: "payments to organisations, with the organisation's name and address: no donor in them" },
  pub78: { personal: [], notPersonal: ['name'], forget: "a published IRS list of organisations: none of our users' data" },
  revocations: { personal: [], notPersonal: ['name'], forget: "a published IRS list of organisations: none of our users' data" },
  sanction_reviews: {
    personal: [],
    notPersonal: ['name', 'listed_name', 'listed_key', 'reason', 'note'],
    forget: "operators' decisions on organisations' names against the sanctions list: no donor in them",
  },
  sanctions: { personal: [], notPersonal: ['name', 'name_key'], forget: 'the published OFAC list (its people are sanctioned parties, not our users)' },
  non_profits: { personal: [], notPersonal: ['name', 'name_lower', 'website', 'street', 'city'], forget: "the directory: organisations' public IRS records" },
  oidc_artifacts: { personal: ['payload'], forget: 'their grants, tokens, provider sessions and interactions: deleted' },
  oidc_keys: { personal: [], notPersonal: ['secret'], forget: "the provider's keys" },
  ledger_checkpoints: { personal: [], notPersonal: ['root_hash', 'note', 'key'], forget: "the log's signed tree heads: hashes, no person" },
  ledger_cosignatures: { personal: [], notPersonal: ['witness', 'line'], forget: "witnesses' signatures of checkpoints" },
  ledger_keys: { personal: [], notPersonal: ['name', 'private_key'], forget: "the log's keys" },
  password_resets: { personal: [], forget: 'deleted' },
  postings: { personal: [], forget: 'the journal: kept' },
  receipts: {
    personal: ['body'],
    keptByLaw: true,
    forget: "kept: a receipt is the sponsor's record of a charitable contribution, which tax law requires it to keep; it is never changed",
  },
  scheduled_donations: { personal: ['note', 'metadata'], forget: 'stopped, notes and metadata removed' },
  matches: { personal: [], forget: 'their pledges to match: amounts only, kept (a live one keeps its hold until it ends)' },
  fundraisers: { personal: ['title', 'story', 'metadata'], forget: 'the fundraisers they opened: ended, titled "Fundraiser", story and metadata removed; their donations kept' },
  schema_breaks: { personal: [], notPersonal: ['name'], forget: 'the schema' },
  schema_migrations: { personal: [], notPersonal: ['name'], forget: 'the schema' },
  sign_in_failures: { personal: ['email', 'ip'], forget: 'deleted for their address' },
  users: { personal: ['name', 'slug', 'city', 'avatar_url', 'cover_image_url'], forget: 'pseudonymised: "Deleted user", deleted-ID, status deleted' },
  web_sessions: { personal: [], forget: 'deleted' },
  webhook_attempts: { personal: ['error'], forget: "their endpoints' errors removed (they name the endpoint's host)" },
  webhook_deliveries: {
    personal: ['payload'],
    notPersonal: ['message_id'],
    forget: "every stored payload about them (their endpoints, a giver's about a gift to them): replaced; pending ones fail",
  },
  webhook_endpoints: {
    personal: ['url', 'description'],
    notPersonal: ['secret', 'previous_secret', 'previous_secret_until', 'disabled_reason'],
    forget: 'address and description replaced; disabled and deleted',
  },
  zip_centroids: { personal: [], forget: 'public geography' },
};

/** Column names that look like they hold a person's data: each must be classified, personal or not. */
export const LOOKS_PERSONAL =
  /name|email|note|memo|message|city|url|uri|address|payload|text|html|body|description|recipient|summary|avatar|^ip$|data|error|reason|before|after|secret|website|street|phone/i;
