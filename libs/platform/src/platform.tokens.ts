/** Injection token for the service's name ("offers-api", ...). */
export const SERVICE_NAME = Symbol('SERVICE_NAME');
