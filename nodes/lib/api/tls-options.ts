// What a tls-config node gives the account, in the shape undici's connect options take: its own
// file, since the direct pool (transport.ts) and the proxy's pool (proxy-pool.ts) both apply it
// and the one must not import the other back.
export interface TlsOptions {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  passphrase?: string;
  servername?: string;
  rejectUnauthorized?: boolean;
}
