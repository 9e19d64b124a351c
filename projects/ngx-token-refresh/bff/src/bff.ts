/**
 * A backend-for-frontend made by `createBff`: answers its routes with Web-standard `Request` and
 * `Response`, so that it fits any server (Express through `@angular/ssr/node`'s converters, Fastify,
 * Hono, `Deno.serve`, a bare `node:http` server).
 *
 * @usageNotes
 * ```ts
 * // server.ts of an `ng new --ssr` app, before express.static and the Angular handler
 * app.use((req, res, next) => {
 *   bff.handle(createWebRequestFromNodeRequest(req))
 *     .then((response) => (response ? writeResponseToNodeResponse(response, res) : next()))
 *     .catch(next);
 * });
 * process.on('SIGTERM', () => server.close(() => void bff.close()));
 * ```
 */
export interface Bff {
  /**
   * Answers a request of the BFF (`<basePath>/login`, `/callback`, `/session`, `/logout`, and the
   * `apis` prefixes), or resolves `null` for any other, which the server handles as usual (as
   * `AngularNodeAppEngine.handle` does). Rejects only for a bug; the provider's, the store's and the
   * APIs' failures are answered (503, 502), with the body `{ error: { code, message } }`; a sign-in
   * that fails at `/login` or `/callback` is redirected back to the app with `?bffError=<code>` instead.
   */
  handle(request: Request): Promise<Response | null>;
  /**
   * For a graceful shutdown (SIGTERM): waits for the refreshes under way, so that their rotated
   * tokens are saved (a refresh cut off after the provider rotated would lose the session), and for
   * the revocations and writes started in the background; from then on, a request that would need a
   * refresh is answered 503 `ShuttingDown`, for the load balancer to send it to another instance.
   */
  close(): Promise<void>;
}
