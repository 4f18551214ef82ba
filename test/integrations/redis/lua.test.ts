import { expect, it } from 'vitest';
import { CLAIM, EXTEND, SETTLE, TOKEN_BUCKET } from '../../../integrations/redis/lua.js';
import { describeRedis, useRedis } from '../../helpers/redis.js';

// Each script run as it is on a real server (EVAL), its replies and the record it leaves read back.
// No test waits: a lease or a bucket is put in the past or the future by writing the record.

const HOUR = 3_600_000;
const FAR_FUTURE_US = 4_102_444_800_000_000; // 2100-01-01, in µs (the bucket's stamp)

describeRedis('the Lua scripts of breakwater/redis', () => {
  const db = useRedis();
  const run = (script: string, key: string, ...args: (string | number)[]) => db.redis.eval(script, 1, key, ...args);

  it('CLAIM: a new key is claimed with token 1, pending under a lease, kept ARGV[2] ms', async () => {
    expect(await run(CLAIM, 'c1', HOUR, 2 * HOUR)).toEqual(['c', '1', '0']);
    const record = await db.redis.hgetall('c1');
    expect(record).toMatchObject({ s: 'p', tok: '1' });
    expect(Number(record['lease'])).toBeGreaterThan(0);
    const ttl = await db.redis.pttl('c1');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2 * HOUR);
  });

  it('CLAIM: a pending claim whose lease runs replies p with the milliseconds left on it', async () => {
    await run(CLAIM, 'c2', HOUR, 2 * HOUR);
    const [state, left] = (await run(CLAIM, 'c2', HOUR, 2 * HOUR)) as [string, string];
    expect(state).toBe('p');
    expect(Number(left)).toBeGreaterThan(0);
    expect(Number(left)).toBeLessThanOrEqual(HOUR);
    expect(await db.redis.hget('c2', 'tok')).toBe('1');
  });

  it('CLAIM: a pending claim whose lease has passed is taken over with the next token', async () => {
    await run(CLAIM, 'c3', HOUR, 2 * HOUR);
    await db.redis.hset('c3', 'lease', '1');
    expect(await run(CLAIM, 'c3', HOUR, 2 * HOUR)).toEqual(['c', '2', '1']);
    // a pending record without a lease at all is taken over too
    await db.redis.hdel('c3', 'lease');
    expect(await run(CLAIM, 'c3', HOUR, 2 * HOUR)).toEqual(['c', '3', '1']);
  });

  it('SETTLE: only the claim that holds the key settles it; a stored result is then served, the lease gone', async () => {
    await run(CLAIM, 's1', HOUR, 2 * HOUR);
    expect(await run(SETTLE, 's1', '2', 's', '"late"', HOUR)).toBe(0);
    expect(await db.redis.hget('s1', 's')).toBe('p');
    expect(await run(SETTLE, 's1', '1', 's', '{"ok":true}', HOUR)).toBe(1);
    expect(await db.redis.hgetall('s1')).toEqual({ s: 's', tok: '1', v: '{"ok":true}' });
    const ttl = await db.redis.pttl('s1');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(HOUR);
    expect(await run(CLAIM, 's1', HOUR, 2 * HOUR)).toEqual(['s', '{"ok":true}']);
    // settled once: the same token cannot settle it again
    expect(await run(SETTLE, 's1', '1', 'f', '', HOUR)).toBe(0);
  });

  it('SETTLE n: later claims reply n; SETTLE f: the key is claimable again, with the next token, not as a takeover', async () => {
    await run(CLAIM, 's2', HOUR, 2 * HOUR);
    expect(await run(SETTLE, 's2', '1', 'n', '', HOUR)).toBe(1);
    expect(await run(CLAIM, 's2', HOUR, 2 * HOUR)).toEqual(['n']);
    await run(CLAIM, 's3', HOUR, 2 * HOUR);
    expect(await run(SETTLE, 's3', '1', 'f', '', HOUR)).toBe(1);
    expect(await run(CLAIM, 's3', HOUR, 2 * HOUR)).toEqual(['c', '2', '0']);
    // a fresh claim clears the value a failed record may carry
    expect(await db.redis.hexists('s3', 'v')).toBe(0);
  });

  it('EXTEND: only the claim that holds the key moves its lease, and the record lives at least as long', async () => {
    await run(CLAIM, 'e1', 1_000, HOUR);
    const before = Number(await db.redis.hget('e1', 'lease'));
    expect(await run(EXTEND, 'e1', '2', 2 * HOUR)).toBe(0);
    expect(Number(await db.redis.hget('e1', 'lease'))).toBe(before);
    expect(await run(EXTEND, 'e1', '1', 2 * HOUR)).toBe(1);
    expect(Number(await db.redis.hget('e1', 'lease'))).toBeGreaterThan(before);
    // kept at least as long as the new lease
    expect(await db.redis.pttl('e1')).toBeGreaterThan(HOUR);
    // a settled record has no lease to extend
    await run(SETTLE, 'e1', '1', 's', 'v', HOUR);
    expect(await run(EXTEND, 'e1', '1', 2 * HOUR)).toBe(0);
  });

  it('TOKEN_BUCKET: a new bucket starts full: burst calls take a token, the next waits', async () => {
    // a token every 10^6 s: none comes back while the test runs, however slow the machine
    expect(await run(TOKEN_BUCKET, 't1', 1e-6, 2, HOUR)).toBe(0);
    expect(await run(TOKEN_BUCKET, 't1', 1e-6, 2, HOUR)).toBe(0);
    const wait = (await run(TOKEN_BUCKET, 't1', 1e-6, 2, HOUR)) as number;
    // one token is 10^9 ms away, less the little that refilled meanwhile (a millisecond per second)
    expect(wait).toBeGreaterThan(999_000_000);
    expect(wait).toBeLessThanOrEqual(1_000_000_000);
    const ttl = await db.redis.pttl('t1');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(HOUR);
  });

  it('TOKEN_BUCKET: the wait for the missing part of a token, rounded up, never under 1 ms', async () => {
    // a bucket stamped in the future is not refilled (a clock that went back): its tokens are as stored
    await db.redis.hset('t2', 'tokens', '0.5', 'ts', String(FAR_FUTURE_US));
    expect(await run(TOKEN_BUCKET, 't2', 1, 5, HOUR)).toBe(500);
    expect(await db.redis.hget('t2', 'ts')).toBe(String(FAR_FUTURE_US));
    await db.redis.hset('t3', 'tokens', '0.9999', 'ts', String(FAR_FUTURE_US));
    expect(await run(TOKEN_BUCKET, 't3', 1_000, 5, HOUR)).toBe(1);
    // within float noise of a whole token is a token
    await db.redis.hset('t4', 'tokens', String(1 - 1e-12), 'ts', String(FAR_FUTURE_US));
    expect(await run(TOKEN_BUCKET, 't4', 1, 5, HOUR)).toBe(0);
  });

  it('TOKEN_BUCKET: refills at the rate, up to burst, by the server’s time', async () => {
    // stamped long ago: full again, whatever it held
    await db.redis.hset('t5', 'tokens', '0', 'ts', '1');
    expect(await run(TOKEN_BUCKET, 't5', 1, 3, HOUR)).toBe(0);
    expect(Number(await db.redis.hget('t5', 'tokens'))).toBeCloseTo(2, 6);
  });
});
