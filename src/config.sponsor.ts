// The sponsor's own details from the environment, as printed on receipts, instructions and the
// NACHA file: a placeholder saying what to set wherever one is unset.

/** The sponsor as receipts and a donor's instructions name it (contributions' rails). */
export interface SponsorDetails {
  name: string;
  ein: string;
  address: string;
  bank: string;
  brokerage: string;
  crypto: string;
}

/** The sponsor's originator details for the NACHA file ('' where unset; payments/nacha.ts). */
export interface AchSettings {
  /** The bank the file is sent to: its routing number (9 digits) and name. */
  destinationRouting: string;
  destinationName: string;
  /** The file's origin: a 10-character identification and a name. */
  originId: string;
  originName: string;
  /** The company in the batch: a 10-character identification and a name. */
  companyId: string;
  companyName: string;
  /** The originating bank's routing number (its first 8 digits start each trace number). */
  odfiRouting: string;
}

export function achSettings(env: NodeJS.ProcessEnv): AchSettings {
  return {
    destinationRouting: env.ACH_DESTINATION_ROUTING ?? '',
    destinationName: env.ACH_DESTINATION_NAME ?? '',
    originId: env.ACH_ORIGIN_ID ?? '',
    originName: env.ACH_ORIGIN_NAME ?? '',
    companyId: env.ACH_COMPANY_ID ?? '',
    companyName: env.ACH_COMPANY_NAME ?? '',
    odfiRouting: env.ACH_ODFI_ROUTING ?? '',
  };
}

/** The sponsor as printed on receipts and instructions (a placeholder saying what to set where unset), and which are unset. */
export function sponsorSettings(env: NodeJS.ProcessEnv): { sponsor: SponsorDetails; sponsorUnset: string[] } {
  return {
    sponsor: {
      name: env.SPONSOR_NAME || 'Almoner Giving Fund (set SPONSOR_NAME)',
      ein: env.SPONSOR_EIN || '00-0000000',
      address: env.SPONSOR_ADDRESS || '(set SPONSOR_ADDRESS: the address checks are mailed to)',
      bank: env.SPONSOR_BANK || '(set SPONSOR_BANK: bank name, routing and account numbers for wires and transfers)',
      brokerage: env.SPONSOR_BROKERAGE || '(set SPONSOR_BROKERAGE: broker, DTC number and account for stock)',
      crypto: env.SPONSOR_CRYPTO || '(set SPONSOR_CRYPTO: a wallet address per accepted token)',
    },
    sponsorUnset: ['SPONSOR_NAME', 'SPONSOR_EIN', 'SPONSOR_ADDRESS', 'SPONSOR_BANK', 'SPONSOR_BROKERAGE', 'SPONSOR_CRYPTO'].filter((name) => (env[name] ?? '').trim() === ''),
  };
}
