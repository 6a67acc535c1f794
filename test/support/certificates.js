// Certificates for the TLS specs, made with openssl in a temporary folder: a private CA, a server
// certificate it signed for 127.0.0.1, a self-signed one and another CA.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { tempDir } = require("./temp");

/** Whether openssl can be run here (the specs that need it skip otherwise). */
function hasOpenssl() {
  try {
    execFileSync("openssl", ["version"], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

/**
 * A private CA, a server certificate it signed for 127.0.0.1, a self-signed one and another CA.
 * `names`: more host names the certificates are good for (the proxy specs' proxy-only name).
 */
function makeCertificates({ names = [] } = {}) {
  const dir = tempDir("edgewire-tls-");
  const san = ["subjectAltName=IP:127.0.0.1,DNS:localhost", ...names.map((n) => `DNS:${n}`)].join(
    ",",
  );
  const openssl = (...args) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  /** A new key `<name>.key` and a request for it (`out`), or with -x509 a certificate. */
  const request = (name, out, subject, ...more) =>
    openssl(
      "req",
      ...more,
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${name}.key`,
      "-out",
      out,
      "-subj",
      subject,
    );
  /** A new key `<name>.key` and its self-signed certificate `<name>.pem`, good for two days. */
  const selfSigned = (name, subject, ...more) =>
    request(name, `${name}.pem`, subject, "-x509", "-days", "2", ...more);
  selfSigned("ca", "/CN=Edgewire Test CA");
  request("server", "server.csr", "/CN=127.0.0.1", "-addext", san);
  fs.writeFileSync(path.join(dir, "ext.cnf"), `${san}\n`);
  openssl(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.pem",
    "-days",
    "2",
    "-extfile",
    "ext.cnf",
  );
  selfSigned("self", "/CN=127.0.0.1", "-addext", san);
  selfSigned("other-ca", "/CN=Another CA");
  const read = (f) => fs.readFileSync(path.join(dir, f));
  return {
    dir,
    ca: path.join(dir, "ca.pem"),
    otherCa: path.join(dir, "other-ca.pem"),
    signed: { key: read("server.key"), cert: read("server.pem") },
    self: { key: read("self.key"), cert: read("self.pem") },
  };
}

module.exports = { makeCertificates, hasOpenssl };
