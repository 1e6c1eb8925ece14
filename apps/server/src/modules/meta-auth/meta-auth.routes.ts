import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ErrorCode } from '@sales-agent/shared/error-codes';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorBody } from '@sales-agent/shared/schemas/common';
import { session } from '@sales-agent/shared/schemas/user';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { requireUser, signIn } from '../../plugins/auth.ts';
import { issuePasswordToken } from '../users/password-tokens.ts';
import { buildAuthorizeUrl, connectAccounts, linkFacebookLogin, loginWithFacebookToken, lookupPageName, publicMetaConfig } from './meta-auth.service.ts';
import { issueState, STATE_COOKIE, STATE_TTL_MS, verifyState, type OAuthPurpose } from './oauth-state.ts';

const tags = ['meta-api'];
const connectType = z.enum(['INSTAGRAM', 'FACEBOOK', 'WHATSAPP']);
/** A missing or empty code is the spec's 'Code not found' (§8.3). */
const codeField = z.string({ error: 'Code not found' }).trim().min(1, 'Code not found').max(4096);
const stateField = z.string().max(2048).optional();

export async function metaAuthRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const secret = ctx.config.APP_SECRET;
  const authLimit = { rateLimit: { max: ctx.config.AUTH_RATE_LIMIT, timeWindow: '1 minute' } };
  const cookieOptions = { path: '/api/meta-api', httpOnly: true, sameSite: 'lax' as const, secure: ctx.config.PUBLIC_URL.startsWith('https://') };
  const clearStateCookie = (reply: FastifyReply) => reply.clearCookie(STATE_COOKIE, { path: '/api/meta-api' });

  r.get(
    '/api/meta-api/config',
    {
      schema: {
        tags,
        summary: 'Public Meta settings for the browser: client ids and OAuth dialog URLs (read at run time)',
        response: {
          200: z.object({
            metaAppId: z.string().nullable(),
            instagramAppId: z.string().nullable(),
            facebookDialogUrl: z.string(),
            instagramDialogUrl: z.string(),
            canConnect: z.object({ INSTAGRAM: z.boolean(), FACEBOOK: z.boolean(), WHATSAPP: z.boolean() }),
          }),
        },
      },
    },
    async () => publicMetaConfig(ctx),
  );

  r.get(
    '/api/meta-api/connect-url',
    {
      schema: {
        tags,
        summary: 'The OAuth dialog URL for Facebook login or for connecting an account, with a signed single-use state',
        description: 'LOGIN needs no session; INSTAGRAM, FACEBOOK and WHATSAPP need one (401). Sets the httpOnly nonce cookie the return call must bring. 503 META_NOT_CONFIGURED when the app ids are not set.',
        querystring: z.object({ type: z.enum(['LOGIN', 'INSTAGRAM', 'FACEBOOK', 'WHATSAPP']) }),
        response: { 200: z.object({ url: z.string() }), 401: errorBody, 503: errorBody },
      },
    },
    async (request, reply) => {
      const purpose: OAuthPurpose = request.query.type;
      // Connecting needs a signed-in user (the account is granted to them); login is for visitors.
      const userId = purpose === 'LOGIN' ? null : requireUser(request).id;
      const { state, nonce } = issueState(secret, purpose, userId);
      const url = buildAuthorizeUrl(ctx, purpose, state);
      reply.setCookie(STATE_COOKIE, nonce, { ...cookieOptions, maxAge: Math.floor(STATE_TTL_MS / 1000) });
      return { url };
    },
  );

  r.post(
    '/api/meta-api/meta-login-register-redirect',
    {
      config: authLimit,
      schema: {
        tags,
        summary: 'Facebook login: checks the access token (debug_token for this app, then /me) and logs the person in or registers them',
        description:
          'An account without a password gets `setPasswordToken`, the one-time token of its set-password link (1 hour). An existing ' +
          'account with a password is not signed in: 409 META_LINK_PASSWORD_REQUIRED with a `linkToken` for /api/meta-api/link-facebook ' +
          '(unless the caller is signed in as it). An ADMIN account: 403.',
        body: z.object({ code: codeField, state: stateField }),
        response: {
          200: session.extend({ setPasswordToken: z.string().optional() }),
          400: errorBody,
          401: errorBody,
          403: errorBody,
          409: errorBody.extend({ email: z.string().optional(), linkToken: z.string().optional() }),
        },
      },
    },
    async (request, reply) => {
      verifyState(secret, request.body.state, { purpose: 'LOGIN', userId: null, nonce: request.cookies[STATE_COOKIE] });
      clearStateCookie(reply);
      const result = await loginWithFacebookToken(ctx, request.body.code, request.actor);
      if (result.status === 'password-required') {
        return reply.status(409).send({
          error: 'An account with this email already exists. Enter its password once to link your Facebook login to it.',
          code: 'META_LINK_PASSWORD_REQUIRED' satisfies ErrorCode,
          email: result.email,
          linkToken: result.linkToken,
        });
      }
      const { actor } = result;
      const signedIn = await signIn(reply, ctx, actor);
      if (!result.needsPassword) return signedIn;
      const { token } = await issuePasswordToken(ctx, { email: actor.email, userId: actor.id, purpose: 'FACEBOOK_LOGIN' });
      return { ...signedIn, setPasswordToken: token };
    },
  );

  r.post(
    '/api/meta-api/link-facebook',
    {
      config: authLimit,
      schema: {
        tags,
        summary: "Facebook login's second step for an account with a password: proves the password, links Facebook and signs in",
        description: 'Wrong passwords count against the account like login attempts (429 ACCOUNT_LOCKED when locked).',
        body: z.object({ linkToken: z.string().min(1).max(2048), password: z.string().min(1, 'Password is required').max(1024) }),
        response: { 200: session, 400: errorBody, 401: errorBody, 403: errorBody, 409: errorBody, 429: errorBody },
      },
    },
    async (request, reply) => {
      return signIn(reply, ctx, await linkFacebookLogin(ctx, request.body.linkToken, request.body.password));
    },
  );

  r.post(
    '/api/meta-api/connect-meta-page',
    {
      schema: {
        tags,
        summary: 'Connect return: exchanges the code, subscribes the accounts to webhooks, creates or updates them and grants them to the user',
        description: "Answers the connected page name(s). Failures answer 'Error connecting {type} account' (502 META_CONNECT_FAILED, 422 META_NOTHING_GRANTED); the reason is logged.",
        querystring: z.object({ type: connectType.default('INSTAGRAM') }),
        body: z.object({ code: codeField, state: stateField }),
        response: { 200: z.object({ pageName: z.string() }), 400: errorBody, 401: errorBody, 502: errorBody },
      },
    },
    async (request, reply) => {
      const actor = requireUser(request);
      const type = request.query.type;
      verifyState(secret, request.body.state, { purpose: type, userId: actor.id, nonce: request.cookies[STATE_COOKIE] });
      clearStateCookie(reply);
      return connectAccounts(ctx, actor, type, request.body.code);
    },
  );

  r.get(
    '/api/meta-api/page-name',
    {
      schema: {
        tags,
        summary: 'The live name of a connected Page / Instagram account or of a prospect on it, with the stored token (cached)',
        querystring: z.object({
          pageId: z.string().trim().min(1, 'pageId is required').max(128),
          type: z.enum(['INSTAGRAM', 'FACEBOOK']),
          /** Accepted for the spec's call shape and ignored: the stored token of the account is used. */
          accessToken: z.string().optional(),
          messagingAccountId: z.coerce.number().int().positive().optional(),
        }),
        response: { 200: z.object({ name: z.string() }), 401: errorBody, 403: errorBody, 404: errorBody },
      },
    },
    async (request) => {
      const { pageId, type, messagingAccountId } = request.query;
      return lookupPageName(ctx, requireUser(request), { pageId, type, messagingAccountId });
    },
  );
}
