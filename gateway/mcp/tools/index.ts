/** The tools of the tool server (SPEC.md "Tool server"), one per file, in the order tools/list gives them. */
import diff_catalog from './diff_catalog.ts';
import get_advisories from './get_advisories.ts';
import get_dependencies from './get_dependencies.ts';
import get_package from './get_package.ts';
import get_package_versions from './get_package_versions.ts';
import get_sbom from './get_sbom.ts';
import list_catalog_commits from './list_catalog_commits.ts';
import search_packages from './search_packages.ts';
import type { Tool } from '../tool.ts';

export const TOOLS: readonly Tool[] = [
  search_packages,
  get_package,
  get_package_versions,
  get_advisories,
  get_dependencies,
  get_sbom,
  list_catalog_commits,
  diff_catalog,
];
