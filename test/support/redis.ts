/** The Redis the tests use (REDIS_URL, else the local default), for specs that talk to Redis without an app. */
export function testRedisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}
