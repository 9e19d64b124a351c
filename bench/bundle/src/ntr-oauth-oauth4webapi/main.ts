import { bootstrapWithSignIn } from './bootstrap-with-sign-in';

// The sign-in with oauth4webapi, then the OAuth preset with no feature (refresh on 401).
bootstrapWithSignIn();
