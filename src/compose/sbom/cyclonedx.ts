/**
 * A package's CycloneDX 1.5 SBOM at one commit, built with the CycloneDX library's models and
 * normalised by its JSON normaliser for spec 1.5, then written by our one
 * serializer. What goes where is described for users in docs/sbom.md:
 *
 * - `metadata.component` is the package; every other package of its build and runtime closure
 *   is a component, `scope: required` when the package reaches it through runtime dependencies
 *   alone, `scope: excluded` when it is needed only to build (plus the property `pkgcat:scope`);
 * - a dangling dependency (no such package at that commit) is a component without a version,
 *   with the property `pkgcat:missing` = `true`;
 * - purl `pkg:generic/<name>@<version>` (the catalog knows no ecosystem of origin), the license
 *   as an SPDX expression (or a named license when it is none), the archive as a `distribution`
 *   reference with its SHA-256 (also the component's hash);
 * - `vulnerabilities`: every active advisory on any component, the root included.
 *
 * Byte-stable (DECISIONS.md 7): the serial number is a UUID v5 of (sha, name, format) and the
 * timestamp the commit's pushedAt. Pure.
 */
import { Enums, Models, Serialize, Spec } from '@cyclonedx/cyclonedx-library';
import { Factories as LicenseFactories } from '@cyclonedx/cyclonedx-library/Contrib/License';
import { PackageURL } from 'packageurl-js';
import spdxExpressionParse from 'spdx-expression-parse';
import { v5 as uuidv5 } from 'uuid';
import type { FullAdvisory, PackageRecord } from '../../schemas/wire.ts';
import { componentMarker } from './markers.ts';
import type { ComponentScope, SbomComponent, SbomSubject, SbomVulnerability } from './subject.ts';
import { memoized } from '../../memo.ts';
import { RawJson, serialize } from '../../serialize.ts';

/** A date of the catalog's OSV text; undefined when it is no date (the catalog format asks only for a string, and the library cannot write an invalid one). */
function dateOf(text: string | null | undefined): Date | undefined {
  const date = text ? new Date(text) : null;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

/** The namespace of pkgcat's SBOM serial numbers (a fixed UUID v5 of the URL namespace and "pkgcat"). */
const SERIAL_NAMESPACE = uuidv5('https://pkgcat.dev/sbom', uuidv5.URL);

/** UUID v5 of `sha/name/format`: a document that carries the tip is cut and filled with it many times per release. */
const serialNumberOf = memoized((source: string) => `urn:uuid:${uuidv5(source, SERIAL_NAMESPACE)}`);

/** The serial number of the SBOM of (sha, name, format) (DECISIONS.md 7). */
export function sbomSerialNumber(sha: string, name: string, format: 'cyclonedx' | 'spdx'): string {
  return serialNumberOf(`${sha}/${name}/${format}`);
}

const licenses = new LicenseFactories.LicenseFactory((expression: string) => void spdxExpressionParse(expression));
const normalizer = new Serialize.JSON.Normalize.Factory(Spec.Spec1dot5).makeForBom();

/** The purl of a component: `pkg:generic/<name>@<version>`, without a version when it is dangling. */
export function purlOf(name: string, version: string | null): string {
  return new PackageURL('generic', undefined, name, version ?? undefined, undefined, undefined).toString();
}

const property = (name: string, value: string) => new Models.Property(name, value);

function componentOf({ name, record, scope }: SbomComponent): Models.Component {
  const component = new Models.Component(Enums.ComponentType.Library, name, {
    bomRef: name,
    version: record?.version,
    purl: purlOf(name, record?.version ?? null),
    scope: scope === 'runtime' ? Enums.ComponentScope.Required : Enums.ComponentScope.Excluded,
    description: record?.description || undefined,
  });
  if (!record) {
    component.properties.add(property('pkgcat:missing', 'true'));
    component.properties.add(property('pkgcat:scope', scope));
    return component;
  }
  component.properties.add(property('pkgcat:scope', scope));
  if (record.license) component.licenses.add(licenses.makeFromString(record.license));
  const archiveHash: [Enums.HashAlgorithm, string] = [Enums.HashAlgorithm['SHA-256'], record.archive.sha256];
  component.hashes.set(...archiveHash);
  component.externalReferences.add(
    new Models.ExternalReference(record.archive.url, Enums.ExternalReferenceType.Distribution, { hashes: new Models.HashDictionary([archiveHash]) }),
  );
  if (record.repository) component.externalReferences.add(new Models.ExternalReference(record.repository, Enums.ExternalReferenceType.VCS));
  if (record.homepage) component.externalReferences.add(new Models.ExternalReference(record.homepage, Enums.ExternalReferenceType.Website));
  return component;
}

const RATING_METHODS: Record<string, Enums.Vulnerability.RatingMethod> = {
  '2.0': Enums.Vulnerability.RatingMethod.CVSSv2,
  '3.0': Enums.Vulnerability.RatingMethod.CVSSv3,
  '3.1': Enums.Vulnerability.RatingMethod.CVSSv31,
  '4.0': Enums.Vulnerability.RatingMethod.CVSSv4,
};

function ratingOf(advisory: FullAdvisory): Models.Vulnerability.Rating {
  const severity = advisory.severity as Enums.Vulnerability.Severity;
  const { cvss } = advisory;
  if (!cvss) return new Models.Vulnerability.Rating({ severity });
  return new Models.Vulnerability.Rating({
    severity,
    score: cvss.score,
    vector: cvss.vector,
    method: RATING_METHODS[cvss.version] ?? Enums.Vulnerability.RatingMethod.Other,
  });
}

/** "Upgrade zlib to 1.3.1; upgrade libpng to 1.6.44 or 1.7.0.", or nothing when no fix is known. */
export function recommendationOf(affects: SbomVulnerability['affects']): string | undefined {
  const fixes = affects.filter(({ fixedIn }) => fixedIn.length > 0).map(({ name, fixedIn }) => `upgrade ${name} to ${fixedIn.join(' or ')}`);
  if (fixes.length === 0) return undefined;
  const sentence = fixes.join('; ');
  return `${sentence[0].toUpperCase()}${sentence.slice(1)}.`;
}

function vulnerabilityOf({ advisory, affects }: SbomVulnerability): Models.Vulnerability.Vulnerability {
  const vulnerability = new Models.Vulnerability.Vulnerability({
    bomRef: `vulnerability:${advisory.id}`,
    id: advisory.id,
    source: new Models.Vulnerability.Source({ name: 'OSV' }),
    description: advisory.summary ?? undefined,
    detail: advisory.details ?? undefined,
    recommendation: recommendationOf(affects),
    published: dateOf(advisory.published),
    updated: dateOf(advisory.modified),
  });
  vulnerability.ratings.add(ratingOf(advisory));
  for (const alias of advisory.aliases) vulnerability.references.add(new Models.Vulnerability.Reference(alias, new Models.Vulnerability.Source({ name: alias.startsWith('CVE-') ? 'NVD' : 'OSV' })));
  for (const reference of advisory.references) {
    if (reference.url) vulnerability.advisories.add(new Models.Vulnerability.Advisory(reference.url));
  }
  for (const { name } of affects) vulnerability.affects.add(new Models.Vulnerability.Affect(new Models.BomRef(name)));
  return vulnerability;
}

const componentNormalizer = new Serialize.JSON.Normalize.Factory(Spec.Spec1dot5).makeForComponent();

const normalizedComponent = (component: SbomComponent) => componentNormalizer.normalize(componentOf(component), { sortLists: false });

/**
 * Components by record and scope, serialized. A record sits in the closures of many packages (a
 * popular package's 12,700 dependents list it each), so its text is made once per record object.
 */
const componentTexts = new WeakMap<PackageRecord, Partial<Record<ComponentScope, string>>>();

/** The text of the component of a package present in an SBOM, `scope` as the SBOM's root needs it: the same in every SBOM that lists it. */
export function componentText(record: PackageRecord, scope: ComponentScope): string {
  const kept = componentTexts.get(record)?.[scope];
  if (kept !== undefined) return kept;
  const text = serialize(normalizedComponent({ name: record.name, record, scope, dependsOn: [] }));
  componentTexts.set(record, { ...componentTexts.get(record), [scope]: text });
  return text;
}

/**
 * The CycloneDX 1.5 document, as data for our serializer (plain JSON data, but for the components,
 * already serialized). `markers`: each present component is a marker in its place
 * (src/compose/sbom/markers.ts), which a reader replaces with the component's text at the tip.
 */
export function composeCycloneDx(subject: SbomSubject, markers = false): unknown {
  const { commit, root } = subject;
  const bom = new Models.Bom({ version: 1, serialNumber: sbomSerialNumber(commit.sha, root.name, 'cyclonedx') });
  bom.metadata.timestamp = new Date(commit.pushedAt);
  bom.metadata.tools.components.add(new Models.Component(Enums.ComponentType.Application, 'pkgcat'));
  bom.metadata.properties.add(property('pkgcat:commit', commit.sha));
  bom.metadata.properties.add(property('pkgcat:pushedAt', commit.pushedAt));
  const rootComponent = componentOf(root);
  bom.metadata.component = rootComponent;
  // The library derives the dependency graph from the components' `dependencies`; the components
  // it lists are swapped for their full normalised form below (normalised once per record).
  const byName = new Map<string, Models.Component>([[root.name, rootComponent]]);
  for (const component of subject.components) {
    const stub = new Models.Component(Enums.ComponentType.Library, component.name, { bomRef: component.name });
    byName.set(component.name, stub);
    bom.components.add(stub);
  }
  for (const { name, dependsOn } of [root, ...subject.components]) {
    for (const dependency of dependsOn) byName.get(name)!.dependencies.add(byName.get(dependency.name)!.bomRef);
  }
  for (const vulnerability of subject.vulnerabilities) bom.vulnerabilities.add(vulnerabilityOf(vulnerability));
  // Lists keep the order they were built in (sorted above by code units): the library's
  // `sortLists` compares with localeCompare, whose order follows the machine's locale.
  const normalized = normalizer.normalize(bom, { sortLists: false });
  const components = subject.components.map((component) => {
    const { record, scope } = component;
    if (!record) return normalizedComponent(component);
    return new RawJson(markers ? componentMarker(scope, record.name) : componentText(record, scope));
  });
  return { ...normalized, components };
}
