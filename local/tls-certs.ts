// A throwaway certificate authority and a server certificate for 127.0.0.1, made with openssl (TLS tests).
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']

export interface TestCertificates {
  dir: string
  /** PEM files. */
  caFile: string
  certFile: string
  keyFile: string
  /** A second CA that signed nothing here: a client trusting only it must refuse the server. */
  otherCaFile: string
  remove(): void
}

export async function makeTestCertificates(): Promise<TestCertificates> {
  const dir = mkdtempSync(join(tmpdir(), 'sdq-tls-'))
  const at = (name: string) => join(dir, name)
  try {
    const ca = async (name: string) =>
      run('openssl', [
        'req',
        '-x509',
        ...KEY,
        '-keyout',
        at(`${name}.key`),
        '-out',
        at(`${name}.crt`),
        '-days',
        '2',
        '-subj',
        `/CN=sdq ${name}`,
      ])
    await Promise.all([ca('ca'), ca('other-ca')])
    await run('openssl', [
      'req',
      ...KEY,
      '-keyout',
      at('server.key'),
      '-out',
      at('server.csr'),
      '-subj',
      '/CN=127.0.0.1',
    ])
    writeFileSync(at('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n')
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      at('server.csr'),
      '-CA',
      at('ca.crt'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-out',
      at('server.crt'),
      '-days',
      '2',
      '-extfile',
      at('san.ext'),
    ])
  } catch (e) {
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
  return {
    dir,
    caFile: at('ca.crt'),
    certFile: at('server.crt'),
    keyFile: at('server.key'),
    otherCaFile: at('other-ca.crt'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** redis-server arguments for TLS only (no plain port) with these certificates; clients need no certificate. */
export function tlsServerArgs(certs: TestCertificates, port: number): string[] {
  return [
    '--port',
    '0',
    '--tls-port',
    String(port),
    '--tls-cert-file',
    certs.certFile,
    '--tls-key-file',
    certs.keyFile,
    '--tls-ca-cert-file',
    certs.caFile,
    '--tls-auth-clients',
    'no',
  ]
}
