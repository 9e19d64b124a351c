// The dev server's proxy for the showcase's `real` configurations (`npm run start:real`): /auth and
// /api go to the reference server, so page and API share one origin (the SameSite=Strict refresh
// cookie travels, nothing needs CORS). SERVER_PORT moves it from its default 127.0.0.1:3000.
const target = `http://127.0.0.1:${process.env.SERVER_PORT?.trim() || 3000}`;

export default {
  '/auth': { target, secure: false, changeOrigin: false },
  '/api': { target, secure: false, changeOrigin: false },
};
