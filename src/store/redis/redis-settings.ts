// Where Redis is and how writes wait for its replicas: the `redis` part of the configuration (src/config.ts reads it
// from the environment). On its own so the parts that only take these settings (the connection, the cleartext
// password warning, which the configuration load calls) need not import the whole configuration.
export interface RedisSettings {
  /** redis:// or rediss:// (TLS), with user/password when the server needs AUTH. */
  url?: string
  /** Redis Cluster seed nodes ("host:port"); TLS and AUTH are taken from `url`'s scheme and credentials. */
  clusterNodes?: string[]
  /** Sentinels ("host:port") that name the primary of `sentinelMaster`; TLS and AUTH as for the cluster. */
  sentinels?: string[]
  sentinelMaster?: string
  /** PEM of the CA that signed the server's certificate (rediss://), when it is not a public one. */
  tlsCa?: string
}

/** How writes wait for replicas: always set in a loaded configuration (src/config.ts holds the defaults). */
export interface ReplicaWaitSettings {
  /**
   * Replicas that must confirm each API write (WAIT) before it is answered: `auto` (the default) one when the
   * primary has a replica online, none on a single node; a number, that many always (503 when fewer); 0 = never.
   */
  waitReplicas: number | 'auto'
  waitTimeoutMs: number
}
