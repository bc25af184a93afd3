// Command go-vm deploys a VM with a secret password, reachable by SSH, on the Compute Workload
// Service: a Pulumi program in Go, run inline by Go's Automation API (no language host needed).
//
//	go run . up        # create or update, then print the outputs
//	go run . preview   # fails if the stack differs from the program
//	go run . refresh
//	go run . destroy
//
// The service and the VM password come from the environment: CWS_BASE_URL, CWS_ORG,
// CWS_API_TOKEN, VM_PASSWORD (see README.md).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"

	"pulumi-cws/sdk/go/cws"
)

const defaultPublicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx ops@cws"

// program declares the resources: an SSH key and a VM that uses it, with its password a secret.
func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	image := cfg.Get("vmImage")
	if image == "" {
		image = "ubuntu-22.04"
	}
	publicKey := cfg.Get("publicKey")
	if publicKey == "" {
		publicKey = defaultPublicKey
	}

	// A lookup: fail early, with the choices, if the image is not offered.
	images, err := cws.GetVmImages(ctx, &cws.GetVmImagesArgs{})
	if err != nil {
		return err
	}
	names := []string{}
	for _, img := range images.Images {
		names = append(names, img.Name)
	}
	if !contains(names, image) {
		return fmt.Errorf("vmImage %q is not offered; choose one of %v", image, names)
	}

	key, err := cws.NewSshKey(ctx, "ops-key", &cws.SshKeyArgs{
		Name:      pulumi.String("ops-key"),
		PublicKey: pulumi.String(publicKey),
	})
	if err != nil {
		return err
	}
	vm, err := cws.NewWorkload(ctx, "vm", &cws.WorkloadArgs{
		Type:         pulumi.String("VM"),
		Name:         pulumi.String("build-vm"),
		Image:        pulumi.String(image),
		ResourceName: pulumi.String("vm-standard"),
		VmConfig:     &cws.VmConfigArgs{Password: cfg.RequireSecret("vmPassword")},
		Ports:        cws.PortArray{&cws.PortArgs{Port: pulumi.Int(2222), Protocol: pulumi.String("TCP")}},
		SshKeys:      pulumi.StringArray{key.Uid},
	})
	if err != nil {
		return err
	}
	ctx.Export("uid", vm.Uid)
	ctx.Export("status", vm.Status)
	ctx.Export("publicIp", vm.PublicIp)
	ctx.Export("sshPort", vm.SshPort)
	ctx.Export("costPerHour", vm.CostPerHour)
	ctx.Export("vmConfig", vm.VmConfig)
	ctx.Export("sshKeyUid", key.Uid)
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: go run . up|preview|refresh|destroy")
	}
	cfg, err := configFromEnv()
	if err != nil {
		return err
	}
	stackName := os.Getenv("PULUMI_STACK")
	if stackName == "" {
		stackName = "dev"
	}
	stack, err := auto.UpsertStackInlineSource(ctx, stackName, "go-vm", program)
	if err != nil {
		return err
	}
	if err := stack.SetAllConfig(ctx, cfg); err != nil {
		return err
	}

	switch args[0] {
	case "up":
		res, err := stack.Up(ctx, optup.ProgressStreams(os.Stdout))
		if err != nil {
			return err
		}
		return printOutputs(res.Outputs)
	case "preview":
		_, err := stack.Preview(ctx, optpreview.ExpectNoChanges(), optpreview.ProgressStreams(os.Stdout))
		return err
	case "refresh":
		_, err := stack.Refresh(ctx, optrefresh.ProgressStreams(os.Stdout))
		return err
	case "destroy":
		_, err := stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stdout))
		return err
	}
	return fmt.Errorf("unknown command %q: use up, preview, refresh or destroy", args[0])
}

// configFromEnv is the stack's configuration; the API token and the VM password are secrets.
func configFromEnv() (auto.ConfigMap, error) {
	cfg := auto.ConfigMap{}
	for _, v := range []struct {
		env, key string
		secret   bool
	}{
		{"CWS_BASE_URL", "cws:baseUrl", false},
		{"CWS_ORG", "cws:org", false},
		{"CWS_API_TOKEN", "cws:apiToken", true},
		{"VM_PASSWORD", "vmPassword", true},
	} {
		value := os.Getenv(v.env)
		if value == "" {
			return nil, fmt.Errorf("%s is not set (it becomes the stack's %s)", v.env, v.key)
		}
		cfg[v.key] = auto.ConfigValue{Value: value, Secret: v.secret}
	}
	return cfg, nil
}

// printOutputs prints the stack outputs as one JSON object; secrets show as "[secret]".
func printOutputs(outputs auto.OutputMap) error {
	shown := map[string]any{}
	for k, v := range outputs {
		if v.Secret {
			shown[k] = "[secret]"
		} else {
			shown[k] = v.Value
		}
	}
	text, err := json.Marshal(shown)
	if err != nil {
		return err
	}
	fmt.Printf("outputs: %s\n", text)
	return nil
}
