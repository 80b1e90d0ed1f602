import * as ts from "typescript"
const files = process.argv.slice(2)
const program = ts.createProgram(files, { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022, allowJs: false, skipLibCheck: true, types: [] })
const checker = program.getTypeChecker()
for (const f of files) {
  const sf = program.getSourceFile(f)!
  const sym = checker.getSymbolAtLocation(sf)!
  for (const e of checker.getExportsOfModule(sym)) {
    const t = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e
    const decl = t.declarations?.[0]
    console.log(`${f.split("/")[1]}\t${e.name}\t${decl ? decl.getSourceFile().fileName.replace(process.cwd()+"/","") : "?"}`)
  }
}
