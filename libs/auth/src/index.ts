// libs/auth: OAuth 2.0 client credentials, API keys and rate limits (issue: libs/auth).
export {};
