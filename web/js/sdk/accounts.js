// Accounts (issue 29): a guest claims its player as a permanent account (username
// and password), signs in from any device, lists and signs out its sessions, changes
// its display name or password, deletes the account. Every call answers a typed
// value or throws a [`RestError`] with the server's code (`invalid_username`,
// `invalid_password`, `bad_credentials`, `username_taken`, `already_claimed`,
// `not_claimed`, `session_not_found`, `in_match`, `not_authenticated`,
// `rate_limited` with [`RestError.retryAfterS`], …).
//
// Passkeys (WebAuthn): [`Accounts.addPasskey`] and [`Accounts.signInWithPasskey`]
// run a whole ceremony with the browser's `navigator.credentials` (or another
// `CredentialsContainer`); the four REST steps are also callable one by one, with
// [`creationOptions`], [`requestOptions`] and [`credentialJSON`] converting between
// the server's JSON (bytes as base64url) and the WebAuthn API's `ArrayBuffer`s.
// Their refusals: `invalid_credential`, `ceremony_not_found`, `passkey_not_found`,
// `too_many_passkeys`, `passkey_taken`, `not_claimed`.
//
// A session's WebSocket is closed with code 4002 when the session is signed out,
// expires or its account is deleted: [`LudoClient`] then reports status
// `signed_out` and does not reconnect (the token is dead: drop it).
import { RestBase } from './rest.js';
/** Base64url without padding of `bytes`. */
export function toBase64Url(bytes) {
    const u8 = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let bin = '';
    for (const b of u8)
        bin += String.fromCharCode(b);
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
/** The bytes of base64url (or base64) text `s`, padded or not. */
export function fromBase64Url(s) {
    const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++)
        out[i] = bin.charCodeAt(i);
    return out.buffer;
}
/** `list` with each entry's `id` (base64url) decoded to bytes. */
function decodeIds(list) {
    return Array.isArray(list) ? list.map((d) => ({ ...d, id: fromBase64Url(d.id) })) : list;
}
/**
 * The `CredentialCreationOptions` for `navigator.credentials.create` of the options
 * of [`Accounts.startAddingPasskey`]: `challenge`, `user.id` and
 * `excludeCredentials[].id` decoded to bytes.
 */
export function creationOptions(options) {
    const pk = options.publicKey;
    const user = pk.user;
    const publicKey = {
        ...pk,
        challenge: fromBase64Url(pk.challenge),
        user: { ...user, id: fromBase64Url(user.id) },
        excludeCredentials: decodeIds(pk.excludeCredentials),
    };
    return { publicKey };
}
/**
 * The `CredentialRequestOptions` for `navigator.credentials.get` of the options of
 * [`Accounts.startPasskeySignIn`]: `challenge` and `allowCredentials[].id` decoded to
 * bytes.
 */
export function requestOptions(options) {
    const o = options;
    const pk = o.publicKey;
    const publicKey = {
        ...pk,
        challenge: fromBase64Url(pk.challenge),
        allowCredentials: decodeIds(pk.allowCredentials),
    };
    const out = { publicKey };
    if (o.mediation)
        out.mediation = o.mediation;
    return out;
}
/**
 * A credential of `navigator.credentials.create` or `.get` as the JSON the server
 * takes: `id`, `rawId`, `type`, `response` (`clientDataJSON` and
 * `attestationObject`, or `authenticatorData`, `signature`, `userHandle`), bytes as
 * base64url, and `extensions` (the client extension results).
 */
export function credentialJSON(cred) {
    const r = cred.response;
    const response = { clientDataJSON: toBase64Url(r.clientDataJSON) };
    if (r.attestationObject)
        response.attestationObject = toBase64Url(r.attestationObject);
    if (r.authenticatorData)
        response.authenticatorData = toBase64Url(r.authenticatorData);
    if (r.signature)
        response.signature = toBase64Url(r.signature);
    if (r.userHandle)
        response.userHandle = toBase64Url(r.userHandle);
    return {
        id: cred.id,
        rawId: toBase64Url(cred.rawId),
        type: cred.type,
        response,
        extensions: cred.getClientExtensionResults?.() ?? {},
    };
}
/** The shortest and longest password (characters, any script, no control characters). */
export const PASSWORD_MIN_CHARS = 8;
export const PASSWORD_MAX_CHARS = 128;
/** The longest username or display name (the names policy: 1–24 characters, any script; characters are grapheme clusters, as `Intl.Segmenter` counts them, at most 64 code points). */
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
    /**
     * `POST /api/v1/accounts/me/passkey-challenges`: starts adding a passkey to the
     * account. Errors: `not_claimed` (a guest), `too_many_passkeys` (10 already).
     */
    startAddingPasskey() {
        return this.call('/api/v1/accounts/me/passkey-challenges', { method: 'POST', auth: true });
    }
    /**
     * `POST /api/v1/accounts/me/passkeys`: finishes adding a passkey named `name` with
     * the `credential` `navigator.credentials.create` gave ([`credentialJSON`]).
     * Errors: `invalid_credential`, `ceremony_not_found`, `invalid_name`,
     * `passkey_taken`, `too_many_passkeys`.
     */
    finishAddingPasskey(ceremonyId, name, credential) {
        return this.call('/api/v1/accounts/me/passkeys', {
            method: 'POST',
            body: { ceremony_id: ceremonyId, name, credential },
            auth: true,
        });
    }
    /**
     * Adds a passkey named `name`: the whole ceremony, the authenticator asked through
     * `credentials` (default: `navigator.credentials`). Throws the browser's
     * `DOMException` when the user cancels, or a [`RestError`] as the steps do.
     */
    async addPasskey(name, credentials = navigator.credentials) {
        const c = await this.startAddingPasskey();
        const cred = await credentials.create(creationOptions(c.options));
        if (!cred)
            throw new Error('no passkey was created');
        return this.finishAddingPasskey(c.ceremony_id, name, credentialJSON(cred));
    }
    /** `GET /api/v1/accounts/me/passkeys`: the account's passkeys, oldest first. */
    async listPasskeys() {
        const r = await this.call('/api/v1/accounts/me/passkeys', { auth: true });
        return r.passkeys;
    }
    /** `DELETE /api/v1/accounts/me/passkeys/{id}`: removes a passkey. Error: `passkey_not_found`. */
    async removePasskey(passkeyId) {
        await this.call(`/api/v1/accounts/me/passkeys/${encodeURIComponent(passkeyId)}`, { method: 'DELETE', auth: true });
    }
    /** `POST /api/v1/sessions/passkey-challenges`: starts a passkey sign-in (no username). */
    startPasskeySignIn() {
        return this.call('/api/v1/sessions/passkey-challenges', { method: 'POST' });
    }
    /**
     * `POST /api/v1/sessions/passkey`: finishes a passkey sign-in with the `credential`
     * `navigator.credentials.get` gave ([`credentialJSON`]); sets [`token`] to the new
     * session's. Errors: `invalid_credential`, `ceremony_not_found`, `rate_limited`.
     */
    async finishPasskeySignIn(ceremonyId, credential) {
        const s = await this.call('/api/v1/sessions/passkey', {
            method: 'POST',
            body: { ceremony_id: ceremonyId, credential },
        });
        this.token = s.token;
        return s;
    }
    /**
     * Signs in with a passkey: the whole ceremony through `credentials` (default:
     * `navigator.credentials`); sets [`token`]. Throws the browser's `DOMException`
     * when the user cancels, or a [`RestError`] as the steps do.
     */
    async signInWithPasskey(credentials = navigator.credentials) {
        const c = await this.startPasskeySignIn();
        const cred = await credentials.get(requestOptions(c.options));
        if (!cred)
            throw new Error('no passkey was chosen');
        return this.finishPasskeySignIn(c.ceremony_id, credentialJSON(cred));
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
