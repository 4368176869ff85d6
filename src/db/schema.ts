// Row types: what the tables hold; nothing outside a *.store.ts file should need them.
import type { ColumnType, Generated } from 'kysely';
import type { Book } from '../shared/book.ts';

export interface UsersTable {
  id: Generated<number>;
  name: string;
  slug: string;
  city: string;
  avatar_url: string | null;
  cover_image_url: string | null;
  visible: number;
  onboarding_status: string;
  status: string;
  created_at: string;
  sandbox_of: number | null;
  /** rules §14: 'live' or 'test' (shared/book.ts). */
  book: Book;
  /** The fund the user acts on (rules §20): their own, or one they are a member of. */
  current_fund_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface FundsTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  summary: string;
  created_at: string;
  /** rules §14: 'live' or 'test' (shared/book.ts). */
  book: Book;
}

export interface CausesTable {
  id: number;
  name: string;
  slug: string;
  color: string;
  ntee_groups: string;
}

export interface FundCausesTable {
  fund_id: number;
  cause_id: number;
}

export interface FollowsTable {
  follower_id: number;
  followee_id: number;
  created_at: string;
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  key_hash: string;
  last4: string;
  mode: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface DonationsTable {
  id: Generated<number>;
  user_id: number;
  fund_id: number;
  non_profit_id: number;
  amount_cents: number;
  status: string;
  note: string | null;
  private_memo: string | null;
  visibility: string;
  scheduled_donation_id: number | null;
  created_at: string;
  updated_at: string;
  mailed_at: string | null;
  cancelled_at: string | null;
  approved_at: string | null;
  rejected_at: string | null;
  completed_at: string | null;
  voided_at: string | null;
  rejection_reason: string | null;
  scheduled_for: string | null;
  /** rules §14: 'live' or 'test' (shared/book.ts). */
  book: Book;
  /** The app connection whose token made it (migration 026), counted against its monthly limit. */
  app_connection_id: number | null;
  /** What the charity learns of the donor (migration 030): name_and_email, name or anonymous. */
  share: Generated<string>;
  /** What the donation is for, and in whose honour: on the remittance, to the owner only. */
  designation: string | null;
  dedication: string | null;
  /** The member who made it (rules §20); for a request, who asked. */
  actor_id: ActorColumn;
  /** A request's (status 'requested'): when it lapses, and the member who approved or declined it. */
  request_expires_at: ColumnType<string | null, string | null | undefined, string | null>;
  decided_by: ColumnType<number | null, number | null | undefined, number | null>;
  decided_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** Partner fields (rules §21): the owner's own id for it (unique per owner) and its metadata, a JSON object of strings. */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
  metadata: ColumnType<string | null, string | null | undefined, string | null>;
  /** The fundraiser it was given to (rules §22): of its own recipient and book. */
  fundraiser_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** Made by a match (rules §22): the match, and the donation it matches (null for what is left, given when it ends). */
  match_id: ColumnType<number | null, number | null | undefined, number | null>;
  matched_donation_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** The checkout provider's id for a grant made through it (rules §24); shown to the charity. */
  tracking_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The app whose token or donate link made it (rules §25): that app's webhook endpoints hear of it. */
  app_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** Raised by every update of the row (migration 064's trigger): the key of the node's kept rows (donations.rows.ts). */
  revision: Generated<number>;
}

export interface GiftsTable {
  id: Generated<number>;
  code: string;
  user_id: number;
  fund_id: number;
  name: string;
  email: string | null;
  amount_cents: number;
  message: string | null;
  ein: string | null;
  seen: number;
  status: string;
  claimed: number;
  created_at: string;
  updated_at: string;
  recipient_user_id: number | null;
  donation_id: number | null;
  /** rules §14: 'live' or 'test' (shared/book.ts). */
  book: Book;
  /** The app connection whose token sent it (migration 026), counted against its monthly limit. */
  app_connection_id: number | null;
  /** The member who sent it (rules §20). */
  actor_id: ActorColumn;
  /** Partner fields (rules §21): the giver's own id for it (unique per giver) and its metadata, a JSON object of strings. */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
  metadata: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface IdempotencyKeysTable {
  user_id: number;
  key: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  locked_until: string;
  created_at: string;
  claim_token: string | null;
  resource: string | null;
}

export interface EventsTable {
  id: Generated<number>;
  user_id: number;
  type: string;
  object_type: string;
  object_id: number;
  data: string;
  created_at: string;
  /** When the relay turned it into webhook deliveries and mail; null until then. */
  relayed_at: Generated<string | null>;
}

export interface DonationCountsTable {
  user_id: number;
  total: number;
  public_total: number;
  /** Moves whenever one of the user's donations is updated or deleted (migration 069's triggers). */
  revision: Generated<number>;
}

export interface AuthEpochTable {
  id: number;
  epoch: number;
}

export interface AdminTokensTable {
  id: Generated<number>;
  name: string;
  token_hash: string;
  last4: string;
  created_at: string;
  revoked_at: string | null;
  /** 014: when it stops working (null: never). */
  expires_at: string | null;
  /** 014: written at most once a minute per token. */
  last_used_at: string | null;
  /** 037: the person the token belongs to; two tokens of one operator are one person. */
  operator: string | null;
}

export interface InvitationsTable {
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  actor: string;
  action: string;
  object_type: string;
  object_id: number;
  before: string | null;
  after: string | null;
  created_at: string;
  /** rules §14: the book of the object acted on; operators' lists show the live book's. */
  book: Book;
}

export interface ScheduledDonationsTable {
  id: Generated<number>;
  user_id: number;
  fund_id: number;
  non_profit_id: number;
  amount_cents: number;
  frequency: string;
  start_date: string;
  occurrences: number;
  next_date: string;
  note: string | null;
  visibility: string;
  status: string;
  created_at: string;
  updated_at: string;
  /** rules §14: 'live' or 'test' (shared/book.ts). */
  book: Book;
  /** The member who set it up (rules §20). */
  actor_id: ActorColumn;
  /** Partner fields (rules §21): the owner's own id for it (unique per owner) and its metadata, a JSON object of strings. */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
  metadata: ColumnType<string | null, string | null | undefined, string | null>;
  /** The fundraiser its payments are given to while it is open (rules §22); only the first is matched. */
  fundraiser_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** The app whose donate link started it (rules §25): each payment is the app's too. */
  app_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export type * from './schema.directory.ts';
export type * from './schema.apps.ts';
export type * from './schema.accounts.ts';
export type * from './schema.members.ts';
export type * from './schema.contributions.ts';
export type * from './schema.fundraisers.ts';
import type { FundraisersTable, MatchesTable } from './schema.fundraisers.ts';
import type { ContributionsTable, ReceiptsTable } from './schema.contributions.ts';
import type { AppConnectionsTable, AppSpendingTable, AppsTable, OidcArtifactsTable, OidcKeysTable } from './schema.apps.ts';
import type {
  DirectoryEpochTable,
  DirectoryTopTable,
  DirectoryVocabularyTable,
  ImportRunsTable,
  NonProfitsTable,
  NonProfitWordsTable,
  ZipCentroidsTable,
} from './schema.directory.ts';
export type { MailOutboxTable, PasswordResetsTable, PlatformSettingsTable, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './schema.notifications.ts';
import type { MailOutboxTable, PasswordResetsTable, PlatformSettingsTable, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './schema.notifications.ts';
import type { CharityClaimsTable, PayeeAccountsTable, PaymentExceptionsTable, PaymentGrantsTable, PaymentRunsTable, PaymentsTable } from './schema.payments.ts';
import type {
  ExchangesTable,
  FundAllocationsTable,
  FundUnitsTable,
  FundValuationsTable,
  InvestmentsTable,
  MonthlyFeesTable,
  PortfolioValuationsTable,
  PortfoliosTable,
  PricesTable,
  ValuationsTable,
} from './schema.investing.ts';
import type {
  JournalEntriesTable,
  LedgerAccountsTable,
  LedgerCheckpointsTable,
  LedgerCosignaturesTable,
  LedgerKeysTable,
  LedgerPlacesTable,
  LedgerWaitingTable,
  PostingsTable,
} from './schema.ledger.ts';
export type { JournalEntriesTable, LedgerAccountsTable, PostingsTable } from './schema.ledger.ts';
import type { AccountsTable, AddressConfirmationsTable, SignInFailuresTable, WebSessionsTable } from './schema.accounts.ts';
import type { ActorColumn, DeathRecordsTable, FundMembersTable, MemberRolesTable, SuccessorLinesTable } from './schema.members.ts';
import type { DiligenceListsTable, Pub78Table, RevocationsTable, SanctionReviewsTable, SanctionsTable } from './schema.diligence.ts';

export interface Database {
  users: UsersTable;
  accounts: AccountsTable;
  web_sessions: WebSessionsTable;
  sign_in_failures: SignInFailuresTable;
  funds: FundsTable;
  causes: CausesTable;
  fund_causes: FundCausesTable;
  follows: FollowsTable;
  api_keys: ApiKeysTable;
  auth_epoch: AuthEpochTable;
  non_profits: NonProfitsTable;
  non_profit_words: NonProfitWordsTable;
  zip_centroids: ZipCentroidsTable;
  directory_vocabulary: DirectoryVocabularyTable;
  import_runs: ImportRunsTable;
  directory_epoch: DirectoryEpochTable;
  directory_top: DirectoryTopTable;
  donations: DonationsTable;
  fundraisers: FundraisersTable;
  matches: MatchesTable;
  donation_counts: DonationCountsTable;
  gifts: GiftsTable;
  contributions: ContributionsTable;
  ledger_accounts: LedgerAccountsTable;
  journal_entries: JournalEntriesTable;
  postings: PostingsTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  admin_tokens: AdminTokensTable;
  invitations: InvitationsTable;
  receipts: ReceiptsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  mail_outbox: MailOutboxTable;
  platform_settings: PlatformSettingsTable;
  password_resets: PasswordResetsTable;
  address_confirmations: AddressConfirmationsTable;
  audit_log: AuditLogTable;
  scheduled_donations: ScheduledDonationsTable;
  apps: AppsTable;
  app_connections: AppConnectionsTable;
  app_spending: AppSpendingTable;
  check_runs: CheckRunsTable;
  diligence_lists: DiligenceListsTable;
  revocations: RevocationsTable;
  pub78: Pub78Table;
  sanctions: SanctionsTable;
  sanction_reviews: SanctionReviewsTable;
  payment_runs: PaymentRunsTable;
  payments: PaymentsTable;
  payment_grants: PaymentGrantsTable;
  payment_exceptions: PaymentExceptionsTable;
  payee_accounts: PayeeAccountsTable;
  charity_claims: CharityClaimsTable;
  portfolios: PortfoliosTable;
  prices: PricesTable;
  valuations: ValuationsTable;
  portfolio_valuations: PortfolioValuationsTable;
  fund_allocations: FundAllocationsTable;
  fund_units: FundUnitsTable;
  exchanges: ExchangesTable;
  investments: InvestmentsTable;
  fund_valuations: FundValuationsTable;
  monthly_fees: MonthlyFeesTable;
  oidc_artifacts: OidcArtifactsTable;
  oidc_keys: OidcKeysTable;
  ledger_places: LedgerPlacesTable;
  ledger_waiting: LedgerWaitingTable;
  ledger_checkpoints: LedgerCheckpointsTable;
  ledger_cosignatures: LedgerCosignaturesTable;
  ledger_keys: LedgerKeysTable;
  fund_members: FundMembersTable;
  member_roles: MemberRolesTable;
  successor_lines: SuccessorLinesTable;
  death_records: DeathRecordsTable;
}

/** Each run of `almoner check` (migration 027): when it ended, how long it took, what failed. */
export interface CheckRunsTable {
  id: Generated<number>;
  finished_at: string;
  duration_ms: number;
  failed: number;
  checked: number;
  release: string;
}
