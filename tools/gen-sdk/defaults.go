package main

import (
	"encoding/json"
	"fmt"
	"path"
	"runtime/debug"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"golang.org/x/mod/modfile"
)

// GoModulePath is the module of the generated Go SDK (sdk/go). It has no host name: programs
// use it through a `replace pulumi-cws/sdk/go => <checkout>/sdk/go` line in their go.mod.
const GoModulePath = "pulumi-cws/sdk/go"

// languageDefaults are this project's settings for each generator, used where the schema's
// `language` section says nothing.
func languageDefaults(pkgName string) map[string]map[string]any {
	return map[string]map[string]any{
		"go": {
			"importBasePath":       path.Join(GoModulePath, pkgName),
			"respectSchemaVersion": true,
		},
		"python": {
			"packageName":          "pulumi_" + pkgName,
			"respectSchemaVersion": true,
			"pyproject":            map[string]any{"enabled": true},
		},
	}
}

// applyLanguageDefaults fills spec.Language[lang][key] where the schema does not set it.
func applyLanguageDefaults(spec *schema.PackageSpec) error {
	if spec.Language == nil {
		spec.Language = map[string]schema.RawMessage{}
	}
	for lang, defaults := range languageDefaults(spec.Name) {
		settings := map[string]any{}
		if raw, ok := spec.Language[lang]; ok && len(raw) > 0 {
			if err := json.Unmarshal(raw, &settings); err != nil {
				return fmt.Errorf("schema language.%s: %w", lang, err)
			}
		}
		for k, v := range defaults {
			if _, set := settings[k]; !set {
				settings[k] = v
			}
		}
		raw, err := json.Marshal(settings)
		if err != nil {
			return err
		}
		spec.Language[lang] = raw
	}
	return nil
}

// goModFile is the generated Go SDK's go.mod: its module path (the import base path without
// the package name) and the Pulumi Go SDK at the version this tool was built with.
func goModFile(importBasePath string) ([]byte, error) {
	sdkVersion, err := builtWith(pulumiGoSDK)
	if err != nil {
		return nil, err
	}
	var f modfile.File
	if err := f.AddModuleStmt(path.Dir(importBasePath)); err != nil {
		return nil, err
	}
	if err := f.AddGoStmt("1.25"); err != nil {
		return nil, err
	}
	if err := f.AddRequire(pulumiGoSDK, sdkVersion); err != nil {
		return nil, err
	}
	return f.Format()
}

// builtWith is the version of a module linked into this binary.
func builtWith(module string) (string, error) {
	info, ok := debug.ReadBuildInfo()
	if ok {
		for _, dep := range info.Deps {
			if dep.Path == module {
				return dep.Version, nil
			}
		}
	}
	return "", fmt.Errorf("cannot tell which version of %s this tool was built with", module)
}
