/**
 * A TCP proxy in front of PostgreSQL that a test can cut: every open connection is
 * destroyed, and new ones are either reset at once ('refuse') or accepted and never
 * answered ('blackhole', like a dead host or a partition). `restore()` forwards again.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';
import type { AddressInfo } from 'node:net';

export type CutMode = 'refuse' | 'blackhole';

export class TcpProxy {
  private mode: 'up' | CutMode = 'up';
  private readonly open = new Set<Socket>();
  private readonly held = new Set<Socket>();
  /** Connections accepted in total, and while cut. */
  accepted = 0;
  acceptedWhileCut = 0;

  private constructor(
    private readonly server: Server,
    readonly upstreamHost: string,
    readonly upstreamPort: number,
  ) {}

  static async start(upstreamHost: string, upstreamPort: number): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server, upstreamHost, upstreamPort);
    server.on('connection', (socket) => proxy.onConnection(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `url` with its host and port replaced by this proxy's. */
  rewrite(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  private onConnection(client: Socket): void {
    this.accepted++;
    client.on('error', () => undefined);
    if (this.mode === 'refuse') {
      this.acceptedWhileCut++;
      client.resetAndDestroy();
      return;
    }
    if (this.mode === 'blackhole') {
      this.acceptedWhileCut++;
      this.held.add(client);
      client.on('close', () => this.held.delete(client));
      client.pause();
      return;
    }
    const upstream = connect(this.upstreamPort, this.upstreamHost);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    this.open.add(client);
    this.open.add(upstream);
    client.once('close', () => this.open.delete(client));
    upstream.once('close', () => this.open.delete(upstream));
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Drops every open connection and treats new ones as `mode` until `restore()`. */
  cut(mode: CutMode): void {
    this.mode = mode;
    for (const s of this.open) s.destroy();
    this.open.clear();
  }

  restore(): void {
    this.mode = 'up';
    for (const s of this.held) s.destroy();
    this.held.clear();
  }

  async close(): Promise<void> {
    this.cut('refuse');
    this.restore();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
