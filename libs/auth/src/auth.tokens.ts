/** Injection token for the options given to AuthModule.forRoot. */
export const AUTH_OPTIONS = Symbol('AUTH_OPTIONS');
