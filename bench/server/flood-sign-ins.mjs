// The attacker of login-flood.mjs, in a process of its own so that its load does not slow down the
// measuring process's clients: `node flood-sign-ins.mjs <url> <connections> <seconds>` prints
// autocannon's status counts as JSON. Every attempt names a new account from a new address
// (`X-Forwarded-For`), as a botnet's would, so no rate limit ever holds it back.
import autocannon from 'autocannon';

const [url, connections, seconds] = process.argv.slice(2);
let attempt = 0;
const result = await autocannon({
  url: `${url}/auth/login`,
  connections: Number(connections),
  duration: Number(seconds),
  requests: [
    {
      method: 'POST',
      setupRequest: (request) => {
        attempt++;
        return {
          ...request,
          headers: {
            'Content-Type': 'application/json',
            'X-Forwarded-For': `10.${(attempt >> 16) & 255}.${(attempt >> 8) & 255}.${attempt & 255}`,
          },
          body: JSON.stringify({ username: `flood-${attempt}`, password: 'a guess' }),
        };
      },
    },
  ],
});
process.stdout.write(JSON.stringify({ statusCodeStats: result.statusCodeStats, errors: result.errors }));
