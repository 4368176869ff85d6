import { DatabaseSync } from 'node:sqlite';
import { hashKey } from '../src/modules/keys/keys.ts';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { openPlatform } from '../src/platform.ts';
import { findCallerByHash } from '../src/modules/keys/index.ts';
const h = hashKey('alm_live_7S5HZyTUnB5EmNYi9zhKSl5guN21aqZuk7nPkxFC');
const p = await openPlatform(loadConfig({}, { databaseUrl: 'sqlite:/tmp/prof/db.sqlite' }), { log: pino({ level: 'warn' }) });
const db = p.deps.db;
const compiled = db.selectFrom('api_keys as k').innerJoin('users as u', 'u.id', 'k.user_id').innerJoin('funds as f', 'f.user_id', 'u.id')
    .select(['k.id as key_id', 'k.user_id', 'k.mode', 'k.last_used_at', 'u.status as user_status', 'f.id as fund_id'])
    .where('k.key_hash', '=', h).where('k.revoked_at', 'is', null).orderBy('f.id').limit(1).compile();
console.log(compiled.sql, compiled.parameters);
const raw = p.handle.sqlite!.raw;
console.log(raw.prepare('explain query plan ' + compiled.sql).all(...(compiled.parameters as any[])).map((r: any) => r.detail));
const st = raw.prepare(compiled.sql);
const time = (name: string, fn: () => unknown) => { for (let i = 0; i < 200; i++) fn(); const t = performance.now(); for (let i = 0; i < 2000; i++) fn(); console.log(name.padEnd(30), ((performance.now() - t) / 2).toFixed(1), 'us'); };
time('caller exact', () => st.all(...(compiled.parameters as any[])));
const t = performance.now(); for (let i = 0; i < 2000; i++) await findCallerByHash(db, h); console.log('via kysely', ((performance.now() - t) / 2).toFixed(1));
await p.close();
