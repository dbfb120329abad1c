/**
 * Secrets the tests plant and then look for, shared by the detector's unit tests and the
 * end-to-end scans. Assembled at run time so that no scanner mistakes a source file for a leak.
 */
export const PLANTED_SECRETS = Object.freeze({
  dbPassword: ['Tr0ub4dor', 'horse', 'staple', '42'].join('-'),
  stripe: 'sk_' + 'live_' + '51HqLyjWDarjtT1zdp7dcXqWEv6rF3xYz',
  github: 'ghp_' + 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx',
  npm: 'c2VjcmV0LXRva2VuLXZhbHVl' + 'LTEyMy1ucG1yYw',
  kubeKey: 'LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt' + 'LS0tLQpNSUlFcEFJQkFBS0NBUUVB',
  kubeToken: 'eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9' + '.a2V5Ym9keQ.c2lnbmF0dXJl',
});

/** A kubeconfig whose user holds the planted client key and token. */
export function plantedKubeconfig(): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: prod',
    '  cluster: {server: "https://k8s.internal:6443"}',
    'users:',
    '- name: admin',
    '  user:',
    `    client-key-data: ${PLANTED_SECRETS.kubeKey}`,
    `    token: ${PLANTED_SECRETS.kubeToken}`,
  ].join('\n');
}
