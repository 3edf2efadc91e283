/**
 * A package's SPDX 2.3 SBOM at one commit (JSON). There is no maintained JavaScript model of
 * SPDX 2.3 documents, so the shape is written here, field by field, after the SPDX 2.3
 * specification; license expressions go through `spdx-expression-parse`, and the tests validate
 * every document against the official SPDX 2.3 JSON schema. What goes where (docs/sbom.md):
 *
 * - one package per component of the closure, the root described by the document (`DESCRIBES`);
 *   `downloadLocation` the archive URL, its SHA-256 as checksum, `licenseDeclared` and
 *   `licenseConcluded` the catalog's expression (a text that is no SPDX expression becomes a
 *   `LicenseRef-` with the text as extracted licensing info), the purl as a `PACKAGE-MANAGER`
 *   reference, each active advisory as a `SECURITY` `advisory` reference (SPDX 2.3 has no
 *   vulnerabilities block);
 * - `BUILD_DEPENDENCY_OF` and `RUNTIME_DEPENDENCY_OF` relationships tell the two kinds apart;
 * - a dangling dependency is a package without `versionInfo`, `downloadLocation: NOASSERTION`,
 *   and a comment saying it is missing.
 *
 * Byte-stable (DECISIONS.md 7): `created` is the commit's pushedAt, `documentNamespace` is a
 * `urn:uuid:` of (sha, name, format) alone, so the document is the same wherever it is served. Pure.
 */
import spdxExpressionParse from 'spdx-expression-parse';
import type { FullAdvisory } from '../../schemas/wire.ts';
import { purlOf, sbomSerialNumber } from './cyclonedx.ts';
import type { SbomComponent, SbomSubject } from './subject.ts';

const NOASSERTION = 'NOASSERTION';

/** SPDX ids allow letters, digits, `.` and `-`: other characters become `-`, and a clash gets a counter. */
function spdxIds(names: readonly string[]): Map<string, string> {
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of names) {
    const base = `SPDXRef-Package-${name.replace(/[^A-Za-z0-9.-]/g, '-')}`;
    let id = base;
    for (let n = 2; taken.has(id); n += 1) id = `${base}-${n}`;
    taken.add(id);
    ids.set(name, id);
  }
  return ids;
}

interface ExtractedLicense {
  licenseId: string;
  name: string;
  extractedText: string;
}

/**
 * The license expression of a package, and the extracted licensing infos it needs: a valid SPDX
 * expression as it is (its `LicenseRef-`s listed), any other text as `LicenseRef-<text>`.
 */
function licenseOf(license: string, extracted: Map<string, ExtractedLicense>): string {
  if (!license.trim()) return NOASSERTION;
  try {
    for (const ref of licenseRefs(spdxExpressionParse(license))) {
      if (!extracted.has(ref)) extracted.set(ref, { licenseId: ref, name: ref.slice('LicenseRef-'.length), extractedText: `${ref}, as the catalog names it` });
    }
    return license;
  } catch {
    const licenseId = `LicenseRef-${license.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '') || 'unnamed'}`;
    if (!extracted.has(licenseId)) extracted.set(licenseId, { licenseId, name: license, extractedText: license });
    return licenseId;
  }
}

function licenseRefs(node: spdxExpressionParse.Info): string[] {
  if ('license' in node) return node.license.startsWith('LicenseRef-') ? [node.license] : [];
  return [...licenseRefs(node.left), ...licenseRefs(node.right)];
}

/** Where an advisory is published: its first `ADVISORY` reference, else its first reference, else OSV's page. */
function advisoryLocation(advisory: FullAdvisory): string {
  const advisoryReference = advisory.references.find((reference) => reference.type === 'ADVISORY' && reference.url);
  return advisoryReference?.url ?? advisory.references.find((reference) => reference.url)?.url ?? `https://osv.dev/vulnerability/${advisory.id}`;
}

function packageOf(component: SbomComponent, spdxId: string, extracted: Map<string, ExtractedLicense>) {
  const { name, record } = component;
  if (!record) {
    return {
      SPDXID: spdxId,
      name,
      downloadLocation: NOASSERTION,
      filesAnalyzed: false,
      licenseConcluded: NOASSERTION,
      licenseDeclared: NOASSERTION,
      copyrightText: NOASSERTION,
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: purlOf(name, null) }],
      comment: 'pkgcat: missing — a dependency named in the catalog that is no package at this commit.',
    };
  }
  const license = licenseOf(record.license, extracted);
  return {
    SPDXID: spdxId,
    name,
    versionInfo: record.version,
    primaryPackagePurpose: 'LIBRARY',
    downloadLocation: record.archive.url,
    filesAnalyzed: false,
    checksums: [{ algorithm: 'SHA256', checksumValue: record.archive.sha256 }],
    ...(record.homepage ? { homepage: record.homepage } : {}),
    ...(record.description ? { summary: record.description } : {}),
    licenseConcluded: license,
    licenseDeclared: license,
    copyrightText: NOASSERTION,
    externalRefs: [
      { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: purlOf(name, record.version) },
      ...record.advisories.map((advisory) => ({
        referenceCategory: 'SECURITY',
        referenceType: 'advisory',
        referenceLocator: advisoryLocation(advisory),
        comment: `${advisory.id} (${advisory.severity})${advisory.summary ? `: ${advisory.summary}` : ''}${advisory.fixedIn.length > 0 ? `; fixed in ${advisory.fixedIn.join(', ')}` : ''}`,
      })),
    ],
    comment: `pkgcat: ${component.scope === 'runtime' ? 'needed at run time' : 'needed only to build'}.`,
  };
}

/** The SPDX 2.3 document (as plain JSON data, for our serializer). */
export function composeSpdx(subject: SbomSubject): unknown {
  const { commit, root, components } = subject;
  const all = [root, ...components];
  const ids = spdxIds(all.map((component) => component.name));
  const extracted = new Map<string, ExtractedLicense>();
  const packages = all.map((component) => packageOf(component, ids.get(component.name)!, extracted));
  const relationships = [
    { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: ids.get(root.name)! },
    ...all.flatMap(({ name, dependsOn }) =>
      dependsOn.map((dependency) => ({
        spdxElementId: ids.get(dependency.name)!,
        relationshipType: dependency.kind === 'build' ? 'BUILD_DEPENDENCY_OF' : 'RUNTIME_DEPENDENCY_OF',
        relatedSpdxElement: ids.get(name)!,
      })),
    ),
  ];
  return {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `${root.name} ${root.record.version} at ${commit.sha}`,
    // Unique per (sha, name, format), as SPDX asks, and independent of the site's address.
    documentNamespace: sbomSerialNumber(commit.sha, root.name, 'spdx'),
    creationInfo: { created: commit.pushedAt, creators: ['Tool: pkgcat'] },
    packages,
    relationships,
    ...(extracted.size > 0 ? { hasExtractedLicensingInfos: [...extracted.values()].sort((a, b) => (a.licenseId < b.licenseId ? -1 : 1)) } : {}),
  };
}
