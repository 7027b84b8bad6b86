import { jest } from '@jest/globals';

// Each fault scenario boots real processes and waits out real outages.
jest.setTimeout(120_000);
