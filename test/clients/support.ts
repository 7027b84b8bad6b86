import type { AddressInfo } from 'node:net';
import type { PlatformConfig } from '@app/platform';
import type { TestApp } from '../support/app';

/** The operator's key of test apps (development default), a Bearer credential like the others. */
export const ADMIN_KEY = 'dev-admin-key';

/** Makes an in-process test app listen on a free loopback port; its base URL, for a real HTTP client. */
export async function listen(t: TestApp<PlatformConfig>): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
}
