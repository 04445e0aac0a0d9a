import { RestBase, type Schema } from './rest.js';
/**
 * A player's account (`GET /api/v1/accounts/me`): `player_id`, `name`, `username`
 * (null for a guest), `created_at`, `session_id` (the caller's session).
 */
export type Account = Schema<'Account'>;
/** A new session (`POST /api/v1/sessions`): `player_id`, `token`, `session_id`. */
export type NewSession = Schema<'SessionCreated'>;
/**
 * One session of the account (`GET /api/v1/sessions`): `session_id`, `client` (of
 * its last `hello`, or the User-Agent it signed in with), `created_at`,
 * `last_used_at`, `current` (the caller's).
 */
export type SessionInfo = Schema<'SessionInfo'>;
/** How many other sessions a call signed out (`signed_out`). */
export type SignedOut = Schema<'SignedOut'>;
/**
 * A passkey ceremony started by the server: `ceremony_id` (send it back within 5
 * minutes) and `options` (`{publicKey: …}`, bytes as base64url).
 */
export type PasskeyChallenge = Schema<'PasskeyChallenge'>;
/** One passkey of the account: `passkey_id`, `name`, `created_at`, `last_used_at` (null before its first sign-in). */
export type PasskeyInfo = Schema<'PasskeyInfo'>;
/** Base64url without padding of `bytes`. */
export declare function toBase64Url(bytes: ArrayBuffer | ArrayBufferView): string;
/** The bytes of base64url (or base64) text `s`, padded or not. */
export declare function fromBase64Url(s: string): ArrayBuffer;
type Json = Record<string, unknown>;
/**
 * The `CredentialCreationOptions` for `navigator.credentials.create` of the options
 * of [`Accounts.startAddingPasskey`]: `challenge`, `user.id` and
 * `excludeCredentials[].id` decoded to bytes.
 */
export declare function creationOptions(options: PasskeyChallenge['options']): CredentialCreationOptions;
/**
 * The `CredentialRequestOptions` for `navigator.credentials.get` of the options of
 * [`Accounts.startPasskeySignIn`]: `challenge` and `allowCredentials[].id` decoded to
 * bytes.
 */
export declare function requestOptions(options: PasskeyChallenge['options']): CredentialRequestOptions;
/** The parts of a WebAuthn `PublicKeyCredential` [`credentialJSON`] reads. */
export interface WebAuthnCredential {
    id: string;
    rawId: ArrayBuffer;
    type: string;
    response: {
        clientDataJSON: ArrayBuffer;
        attestationObject?: ArrayBuffer;
        authenticatorData?: ArrayBuffer;
        signature?: ArrayBuffer;
        userHandle?: ArrayBuffer | null;
    };
    getClientExtensionResults?: () => unknown;
}
/**
 * A credential of `navigator.credentials.create` or `.get` as the JSON the server
 * takes: `id`, `rawId`, `type`, `response` (`clientDataJSON` and
 * `attestationObject`, or `authenticatorData`, `signature`, `userHandle`), bytes as
 * base64url, and `extensions` (the client extension results).
 */
export declare function credentialJSON(cred: WebAuthnCredential): Json;
/** The shortest and longest password (characters, any script, no control characters). */
export declare const PASSWORD_MIN_CHARS = 8;
export declare const PASSWORD_MAX_CHARS = 128;
/** The longest username or display name (the names policy: 1–24 characters, any script; characters are grapheme clusters, as `Intl.Segmenter` counts them, at most 64 code points). */
export declare const USERNAME_MAX_CHARS = 24;
/**
 * The account calls of the REST API under `baseUrl`, with the session's bearer
 * [`token`] (a guest's or an account's); [`signIn`] sets it.
 */
export declare class Accounts extends RestBase {
    /** `GET /api/v1/accounts/me`: the signed-in player (`username` null for a guest). */
    me(): Promise<Account>;
    /**
     * `POST /api/v1/accounts`: the guest of [`token`] becomes a permanent account
     * (same player_id, ratings, history and running matches; the token stays valid).
     * Errors: `invalid_username`, `invalid_password`, `username_taken`,
     * `already_claimed`, `not_authenticated`, `rate_limited`.
     */
    claimAccount(username: string, password: string): Promise<Account>;
    /**
     * `POST /api/v1/sessions`: signs in with username and password; sets [`token`] to
     * the new session's. Errors: `bad_credentials` (unknown username or wrong
     * password), `rate_limited` (with `retryAfterS`).
     */
    signIn(username: string, password: string): Promise<NewSession>;
    /**
     * `POST /api/v1/accounts/me/passkey-challenges`: starts adding a passkey to the
     * account. Errors: `not_claimed` (a guest), `too_many_passkeys` (10 already).
     */
    startAddingPasskey(): Promise<PasskeyChallenge>;
    /**
     * `POST /api/v1/accounts/me/passkeys`: finishes adding a passkey named `name` with
     * the `credential` `navigator.credentials.create` gave ([`credentialJSON`]).
     * Errors: `invalid_credential`, `ceremony_not_found`, `invalid_name`,
     * `passkey_taken`, `too_many_passkeys`.
     */
    finishAddingPasskey(ceremonyId: string, name: string, credential: Json): Promise<PasskeyInfo>;
    /**
     * Adds a passkey named `name`: the whole ceremony, the authenticator asked through
     * `credentials` (default: `navigator.credentials`). Throws the browser's
     * `DOMException` when the user cancels, or a [`RestError`] as the steps do.
     */
    addPasskey(name: string, credentials?: CredentialsContainer): Promise<PasskeyInfo>;
    /** `GET /api/v1/accounts/me/passkeys`: the account's passkeys, oldest first. */
    listPasskeys(): Promise<PasskeyInfo[]>;
    /** `DELETE /api/v1/accounts/me/passkeys/{id}`: removes a passkey. Error: `passkey_not_found`. */
    removePasskey(passkeyId: string): Promise<void>;
    /** `POST /api/v1/sessions/passkey-challenges`: starts a passkey sign-in (no username). */
    startPasskeySignIn(): Promise<PasskeyChallenge>;
    /**
     * `POST /api/v1/sessions/passkey`: finishes a passkey sign-in with the `credential`
     * `navigator.credentials.get` gave ([`credentialJSON`]); sets [`token`] to the new
     * session's. Errors: `invalid_credential`, `ceremony_not_found`, `rate_limited`.
     */
    finishPasskeySignIn(ceremonyId: string, credential: Json): Promise<NewSession>;
    /**
     * Signs in with a passkey: the whole ceremony through `credentials` (default:
     * `navigator.credentials`); sets [`token`]. Throws the browser's `DOMException`
     * when the user cancels, or a [`RestError`] as the steps do.
     */
    signInWithPasskey(credentials?: CredentialsContainer): Promise<NewSession>;
    /** `GET /api/v1/sessions`: the account's sessions, most recently used first. */
    listSessions(): Promise<SessionInfo[]>;
    /**
     * `DELETE /api/v1/sessions/{id}`: signs a session out (its socket is closed with
     * 4002); `'current'` signs out this token's own session. Error: `session_not_found`.
     */
    signOutSession(sessionId: string | 'current'): Promise<void>;
    /** `DELETE /api/v1/sessions/others`: signs out every other session of the account. */
    signOutOthers(): Promise<SignedOut>;
    /** `PATCH /api/v1/accounts/me`: the display name (guests too). Error: `invalid_name`. */
    changeName(name: string): Promise<Account>;
    /**
     * `POST /api/v1/accounts/me/password`: a new password; every other session of the
     * account is signed out (this one stays). Errors: `bad_credentials` (wrong current
     * password), `invalid_password`, `not_claimed` (a guest).
     */
    changePassword(currentPassword: string, newPassword: string): Promise<SignedOut>;
    /**
     * `DELETE /api/v1/accounts/me`: deletes the account (credentials, sessions,
     * ratings, name; finished matches keep their turns under an empty name). A guest
     * passes no password. Errors: `bad_credentials`, `in_match` (seated in a running
     * match).
     */
    deleteAccount(password?: string): Promise<void>;
}
export {};
