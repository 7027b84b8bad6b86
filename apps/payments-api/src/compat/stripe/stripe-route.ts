import { Authenticated, BasicCredential, HeaderCredentialsOnly } from '@app/auth';
import { AnyQuery, ApiErrorBody, type ApiErrorRef, ApiErrors, FormBody, Idempotent, RenderErrorsWith } from '@app/platform';
import { applyDecorators, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { KeyResource as RequireKeyResource, type KeyResource } from '../../accounts/permissions';
import { STRIPE_ERROR_BODY, stripeRouteError } from './stripe-error';

/**
 * A controller of Stripe's `/v1` (docs/stripe.md): payments keys in `Authorization` (Bearer,
 * or Basic with the key as user name), never a console session cookie (form-encoded POSTs
 * are what a browser sends cross-site without a preflight); restricted keys need `resource`;
 * `Idempotency-Key` on every POST; every error in Stripe's body. Put `@Controller('v1/…')`
 * (a literal path) under it.
 */
export function StripeController(resource: KeyResource): ClassDecorator {
  return applyDecorators(
    ApiTags('stripe'),
    ApiErrorBody(STRIPE_ERROR_BODY),
    Authenticated('payments_key'),
    BasicCredential(),
    HeaderCredentialsOnly(),
    ApiSecurity('stripe_basic'),
    RequireKeyResource(resource),
    Idempotent(),
  );
}

/** The errors every `/v1` route can answer with besides the implicit ones (Stripe's parameter checks). */
const STRIPE_PARAM_ERRORS: ApiErrorRef[] = [
  { code: 'parameter_missing', when: 'a required parameter is absent (Stripe: "Missing required param")' },
  { code: 'parameter_unknown', when: 'a parameter this route does not take (Stripe: "Received unknown parameter")' },
  { code: 'parameter_invalid', when: 'a parameter of the wrong type or value, or a Stripe feature this API lacks, named' },
  { code: 'parameter_duplicate', when: 'a form key sent twice (only `name[]` keys repeat)' },
];

/**
 * One route of `/v1`: 200, parameters from a form-encoded (or JSON) body or from the query
 * string with Stripe's bracketed keys (StripeBody reads and checks them, so the route takes
 * any query key and refuses unknown ones itself), errors in Stripe's body.
 */
export function StripeRoute(summary: string, response: Record<string, unknown>, ...codes: ApiErrorRef[]): MethodDecorator {
  return applyDecorators(
    HttpCode(200),
    RenderErrorsWith(stripeRouteError),
    FormBody(),
    AnyQuery("Stripe's bracketed parameters (created[gte], expand[0]) are decoded and checked by the route (StripeParams)"),
    ApiOperation({ summary }),
    ApiOkResponse({ schema: response }),
    ApiErrors(...STRIPE_PARAM_ERRORS, ...codes),
  );
}
