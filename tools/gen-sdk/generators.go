package main

import (
	"context"
	"fmt"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// The Go SDK module requires the Pulumi Go SDK at the version this tool is built with.
const pulumiGoSDK = "github.com/pulumi/pulumi/sdk/v3"

var generators = map[string]func(*schema.Package) (map[string][]byte, error){
	"python": func(pkg *schema.Package) (map[string][]byte, error) {
		return pygen.GeneratePackage(tool, pkg, nil, noDependencies{})
	},
	"go": generateGo,
}

// generateGo lays the Go SDK out as one module: go.mod at the root of sdk/go, and the
// package at <root>/<name> (import path <module>/<name>).
func generateGo(pkg *schema.Package) (map[string][]byte, error) {
	files, err := gogen.GeneratePackage(tool, pkg, nil)
	if err != nil {
		return nil, err
	}
	info, _ := pkg.Language["go"].(gogen.GoPackageInfo)
	mod, err := goModFile(info.ImportBasePath)
	if err != nil {
		return nil, err
	}
	files["go.mod"] = mod
	return files, nil
}

// noDependencies loads no other package: the cws schema refers to none.
type noDependencies struct{}

func (noDependencies) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %q; gen-sdk loads no other package", name)
}

func (noDependencies) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return noDependencies{}.LoadPackage(d.Name, nil)
}

func (noDependencies) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, fmt.Errorf("the schema refers to package %q; gen-sdk loads no other package", name)
}

func (noDependencies) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return noDependencies{}.LoadPackageReference(d.Name, nil)
}
