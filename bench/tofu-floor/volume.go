package main

// floor_volume: cws_volume's schema as terraform-provider-cws serves it (the attributes with their
// types and required/optional/computed, a `timeouts` block of four durations, and the identity
// { org, uid }), answered from what the tool sends: create fills the computed attributes from the
// plan, read and update give back what they were given.

import (
	"context"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/numberplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type volume struct{}

type timeoutsModel struct {
	Create types.String `tfsdk:"create"`
	Read   types.String `tfsdk:"read"`
	Update types.String `tfsdk:"update"`
	Delete types.String `tfsdk:"delete"`
}

type volumeModel struct {
	ID            types.String   `tfsdk:"id"`
	Name          types.String   `tfsdk:"name"`
	SizeInMb      types.Number   `tfsdk:"size_in_mb"`
	ResourceName  types.String   `tfsdk:"resource_name"`
	AdoptUID      types.String   `tfsdk:"adopt_uid"`
	UID           types.String   `tfsdk:"uid"`
	Size          types.Number   `tfsdk:"size"`
	Status        types.String   `tfsdk:"status"`
	StatusMessage types.String   `tfsdk:"status_message"`
	CostPerHour   types.Number   `tfsdk:"cost_per_hour"`
	WorkloadUID   types.String   `tfsdk:"workload_uid"`
	MountPath     types.String   `tfsdk:"mount_path"`
	PvcName       types.String   `tfsdk:"pvc_name"`
	CreatedAt     types.String   `tfsdk:"created_at"`
	UpdatedAt     types.String   `tfsdk:"updated_at"`
	Timeouts      *timeoutsModel `tfsdk:"timeouts"`
}

type volumeIdentity struct {
	Org types.String `tfsdk:"org"`
	UID types.String `tfsdk:"uid"`
}

func (r *volume) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_volume"
}

// A computed string the service fills in, kept from state on every plan after the first.
func computedString() schema.StringAttribute {
	return schema.StringAttribute{
		Computed:      true,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

func computedNumber() schema.NumberAttribute {
	return schema.NumberAttribute{
		Computed:      true,
		PlanModifiers: []planmodifier.Number{numberplanmodifier.UseStateForUnknown()},
	}
}

func (r *volume) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	optional := schema.StringAttribute{Optional: true}
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id":   computedString(),
			"name": schema.StringAttribute{Required: true},
			"size_in_mb": schema.NumberAttribute{
				Required:      true,
				PlanModifiers: []planmodifier.Number{numberplanmodifier.RequiresReplace()},
			},
			"resource_name": schema.StringAttribute{
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"adopt_uid":      optional,
			"uid":            computedString(),
			"size":           computedNumber(),
			"status":         computedString(),
			"status_message": computedString(),
			"cost_per_hour":  computedNumber(),
			"workload_uid":   computedString(),
			"mount_path":     computedString(),
			"pvc_name":       computedString(),
			"created_at":     computedString(),
			"updated_at":     computedString(),
		},
		Blocks: map[string]schema.Block{
			"timeouts": schema.SingleNestedBlock{
				Attributes: map[string]schema.Attribute{
					"create": optional,
					"read":   optional,
					"update": optional,
					"delete": optional,
				},
			},
		},
	}
}

func (r *volume) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"org": identityschema.StringAttribute{OptionalForImport: true},
			"uid": identityschema.StringAttribute{RequiredForImport: true},
		},
	}
}

func (r *volume) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m volumeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	uid := "vol-" + m.Name.ValueString()
	m.ID = types.StringValue(uid)
	m.UID = m.ID
	m.Size = m.SizeInMb
	m.Status = types.StringValue("available")
	m.StatusMessage = types.StringValue("")
	m.CostPerHour = types.NumberValue(big.NewFloat(0.01))
	m.WorkloadUID = types.StringValue("")
	m.MountPath = types.StringValue("")
	m.PvcName = types.StringValue("pvc-" + uid)
	m.CreatedAt = types.StringValue("2026-01-01T00:00:00Z")
	m.UpdatedAt = m.CreatedAt
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, volumeIdentity{Org: types.StringValue("demo"), UID: m.ID})...)
}

func (r *volume) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m volumeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, volumeIdentity{Org: types.StringValue("demo"), UID: m.ID})...)
}

func (r *volume) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m volumeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *volume) Delete(_ context.Context, _ resource.DeleteRequest, _ *resource.DeleteResponse) {}

func (r *volume) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughWithIdentity(ctx, path.Root("id"), path.Root("uid"), req, resp)
}
