import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';

import type { Repository } from './repository.js';

/**
 * A store for `@fastify/rate-limit` that counts in the database (fixed windows, see
 * {@link Repository.countHit}), so that instances behind a load balancer share one count per key
 * instead of allowing N instances N times the attempts. Each route counts apart (its URL prefixes
 * the key), on the server's clock.
 *
 * @example
 * await app.register(fastifyRateLimit, { global: false, store: createRateLimitStore(repository, Date.now) });
 */
export function createRateLimitStore(repository: Repository, now: () => number): FastifyRateLimitStoreCtor {
  class DatabaseRateLimitStore implements FastifyRateLimitStore {
    constructor(
      _options: unknown,
      private readonly route = '',
    ) {}

    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      const at = now();
      repository.countHit(`${this.route}|${key}`, new Date(at), timeWindow).then(
        ({ hits, endsAt }) => callback(null, { current: hits, ttl: Math.max(0, endsAt.getTime() - at) }),
        (error: Error) => callback(error),
      );
    }

    child(routeOptions: object): FastifyRateLimitStore {
      // The plugin passes the route's options as `routeInfo`; the typings do not say so.
      const url = (routeOptions as { routeInfo?: { url?: string } }).routeInfo?.url;
      if (!url) throw new Error('reference-server: a rate limit outside a route has no key of its own');
      return new DatabaseRateLimitStore(undefined, url);
    }
  }
  return DatabaseRateLimitStore;
}
