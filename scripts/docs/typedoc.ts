/**
 * The API reference: TypeDoc over the package's public entry points (the same list the API report guards),
 * written as Markdown for VitePress by typedoc-plugin-markdown, one page per export, with the sidebar
 * (typedoc-sidebar.json) from typedoc-vitepress-theme.
 */
import { join, relative } from 'node:path';
import { Application, Converter, LogLevel, ReflectionKind, type Context } from 'typedoc';
import { entryPoints } from '../api-report.js';
import { apiFolder, root, siteSrc } from './layout.js';

/** What the reference came to. */
export interface ApiReference {
  /** VitePress sidebar items for the API (typedoc-sidebar.json). */
  readonly sidebarFile: string;
  readonly warnings: number;
}

/**
 * TypeDoc names a module after its file (`index`, `testing`, `claim`); users import it as
 * `effectively-once/testing`. The module's name becomes its title and its folder.
 */
function moduleNames(): Map<string, string> {
  return new Map(
    entryPoints.map((e) => {
      const file = relative('src', e.source).replace(/\.ts$/, '');
      return [file === 'index' ? 'index' : file.replace(/\/index$/, ''), e.specifier];
    }),
  );
}

function renameModules(context: Context): void {
  const names = moduleNames();
  const modules = context.project.getChildrenByKind(ReflectionKind.Module);
  for (const module of modules) {
    const name = names.get(module.name);
    if (name === undefined) throw new Error(`TypeDoc module "${module.name}" matches no entry point of package.json`);
    module.name = name;
  }
  if (modules.length !== names.size) throw new Error(`TypeDoc made ${modules.length} modules for ${names.size} entry points`);
}

export async function buildApiReference(): Promise<ApiReference> {
  const out = join(siteSrc, apiFolder);
  const app = await Application.bootstrapWithPlugins({
    entryPoints: entryPoints.map((e) => join(root, e.source)),
    tsconfig: join(root, 'tsconfig.build.json'),
    plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme'],
    out,
    name: 'API reference',
    readme: 'none',
    excludePrivate: true,
    excludeProtected: true,
    excludeInternal: true,
    logLevel: LogLevel.Warn,
    // typedoc-plugin-markdown and typedoc-vitepress-theme options (declared by the plugins, so not in TypeDocOptions).
    ...({
      docsRoot: siteSrc,
      outputFileStrategy: 'members',
      useCodeBlocks: true,
      sanitizeComments: true,
      sidebar: { autoConfiguration: true, collapsed: true, pretty: true },
    } as object),
  });
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, renameModules);
  const project = await app.convert();
  if (project === undefined || app.logger.hasErrors()) throw new Error('TypeDoc could not convert the entry points (errors above)');
  await app.generateOutputs(project);
  if (app.logger.hasErrors()) throw new Error('TypeDoc could not write the API reference (errors above)');
  return { sidebarFile: join(out, 'typedoc-sidebar.json'), warnings: app.logger.warningCount };
}
