import { withProactiveRefresh } from 'ngx-token-refresh';

import { bootstrapWithSignIn } from '../ntr-oauth-oauth4webapi/bootstrap-with-sign-in';

// As ntr-oauth-oauth4webapi, refreshing ahead of expiry as angular-oauth2-oidc's
// setupAutomaticSilentRefresh does (expires_in plans it): the build to hold against that variant.
bootstrapWithSignIn(withProactiveRefresh());
