/** Injection token for the service's name (ServiceDefinition.name). */
export const SERVICE_NAME = Symbol('SERVICE_NAME');
