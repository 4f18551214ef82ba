/** What A records per request, by code (0: not settled yet). */
export const OUTCOMES = ['pending', 'real', 'fallback', 'error', 'timeout'];
