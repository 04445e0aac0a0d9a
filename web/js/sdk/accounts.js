// Accounts (issue 29): a guest claims its player as a permanent account (username
// and password), signs in from any device, lists and signs out its sessions, changes
// its display name or password, deletes the account. Every call answers a typed
// value or throws a [`RestError`] with the server's code (`invalid_username`,
// `invalid_password`, `bad_credentials`, `username_taken`, `already_claimed`,
// `not_claimed`, `session_not_found`, `in_match`, `not_authenticated`,
// `rate_limited` with [`RestError.retryAfterS`], …).
//
// A session's WebSocket is closed with code 4002 when the session is signed out,
// expires or its account is deleted: [`LudoClient`] then reports status
// `signed_out` and does not reconnect (the token is dead: drop it).
import { RestBase } from './rest.js';
/** The shortest and longest password (characters, any script, no control characters). */
export const PASSWORD_MIN_CHARS = 8;
export const PASSWORD_MAX_CHARS = 128;
/** The longest username (the names policy: 1–24 characters, any script). */
export const USERNAME_MAX_CHARS = 24;
/**
 * The account calls of the REST API under `baseUrl`, with the session's bearer
 * [`token`] (a guest's or an account's); [`signIn`] sets it.
 */
export class Accounts extends RestBase {
    /** `GET /api/v1/accounts/me`: the signed-in player (`username` null for a guest). */
    me() {
        return this.call('/api/v1/accounts/me', { auth: true });
    }
    /**
     * `POST /api/v1/accounts`: the guest of [`token`] becomes a permanent account
     * (same player_id, ratings, history and running matches; the token stays valid).
     * Errors: `invalid_username`, `invalid_password`, `username_taken`,
     * `already_claimed`, `not_authenticated`, `rate_limited`.
     */
    claimAccount(username, password) {
        return this.call('/api/v1/accounts', { method: 'POST', body: { username, password }, auth: true });
    }
    /**
     * `POST /api/v1/sessions`: signs in with username and password; sets [`token`] to
     * the new session's. Errors: `bad_credentials` (unknown username or wrong
     * password), `rate_limited` (with `retryAfterS`).
     */
    async signIn(username, password) {
        const s = await this.call('/api/v1/sessions', { method: 'POST', body: { username, password } });
        this.token = s.token;
        return s;
    }
    /** `GET /api/v1/sessions`: the account's sessions, most recently used first. */
    async listSessions() {
        const r = await this.call('/api/v1/sessions', { auth: true });
        return r.sessions;
    }
    /**
     * `DELETE /api/v1/sessions/{id}`: signs a session out (its socket is closed with
     * 4002); `'current'` signs out this token's own session. Error: `session_not_found`.
     */
    async signOutSession(sessionId) {
        await this.call(`/api/v1/sessions/${encodeURIComponent(sessionId)}`, { method: 'DELETE', auth: true });
    }
    /** `DELETE /api/v1/sessions/others`: signs out every other session of the account. */
    signOutOthers() {
        return this.call('/api/v1/sessions/others', { method: 'DELETE', auth: true });
    }
    /** `PATCH /api/v1/accounts/me`: the display name (guests too). Error: `invalid_name`. */
    changeName(name) {
        return this.call('/api/v1/accounts/me', { method: 'PATCH', body: { name }, auth: true });
    }
    /**
     * `POST /api/v1/accounts/me/password`: a new password; every other session of the
     * account is signed out (this one stays). Errors: `bad_credentials` (wrong current
     * password), `invalid_password`, `not_claimed` (a guest).
     */
    changePassword(currentPassword, newPassword) {
        return this.call('/api/v1/accounts/me/password', {
            method: 'POST',
            body: { current_password: currentPassword, new_password: newPassword },
            auth: true,
        });
    }
    /**
     * `DELETE /api/v1/accounts/me`: deletes the account (credentials, sessions,
     * ratings, name; finished matches keep their turns under an empty name). A guest
     * passes no password. Errors: `bad_credentials`, `in_match` (seated in a running
     * match).
     */
    async deleteAccount(password) {
        await this.call('/api/v1/accounts/me', { method: 'DELETE', body: password === undefined ? {} : { password }, auth: true });
    }
}
