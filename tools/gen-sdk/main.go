// Command gen-sdk writes the Python and Go SDKs of the cws provider from its schema.json with
// the SDK generators of github.com/pulumi/pulumi/pkg/v3 (the same code `pulumi package gen-sdk`
// runs inside each language host).
//
//	gen-sdk -schema schema.json -out sdk [-lang python,go]
//
// Each language's directory (sdk/python, sdk/go) is emptied and written anew. Language
// settings the schema leaves out get this project's defaults (see defaults.go).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const tool = "pulumi-cws gen-sdk"

func main() {
	schemaPath := flag.String("schema", "schema.json", "the provider's schema")
	outDir := flag.String("out", "sdk", "directory that receives <lang>/ for each language")
	langs := flag.String("lang", "python,go", "comma-separated languages to generate: python, go")
	flag.Parse()
	if err := run(*schemaPath, *outDir, strings.Split(*langs, ",")); err != nil {
		fmt.Fprintf(os.Stderr, "gen-sdk: %v\n", err)
		os.Exit(1)
	}
}

func run(schemaPath, outDir string, langs []string) error {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	if err := applyLanguageDefaults(&spec); err != nil {
		return err
	}
	for _, lang := range langs {
		gen, ok := generators[strings.TrimSpace(lang)]
		if !ok {
			return fmt.Errorf("unknown language %q (known: python, go)", lang)
		}
		// Each generator decodes the schema's language section into the bound package,
		// so every language gets a package of its own.
		pkg, err := bind(spec, schemaPath)
		if err != nil {
			return err
		}
		files, err := gen(pkg)
		if err != nil {
			return fmt.Errorf("%s SDK: %w", lang, err)
		}
		dir := filepath.Join(outDir, strings.TrimSpace(lang))
		if err := writeTree(dir, files); err != nil {
			return err
		}
		fmt.Printf("gen-sdk: wrote %d files to %s\n", len(files), dir)
	}
	return nil
}

// bind validates the schema against Pulumi's metaschema and binds it; errors name the
// offending token or property.
func bind(spec schema.PackageSpec, schemaPath string) (*schema.Package, error) {
	pkg, diags, err := schema.BindSpec(spec, noDependencies{}, schema.ValidationOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", schemaPath, err)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s is not a valid package schema: %v", schemaPath, diags)
	}
	return pkg, nil
}

// writeTree replaces dir with exactly the generated files.
func writeTree(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}
