import * as pulumi from "@pulumi/pulumi";

export interface ProviderArgs {
  /** Base URL including /v3. Default: stack config `cws:baseUrl`, else CWS_BASE_URL. */
  baseUrl?: pulumi.Input<string>;
  /** Organization slug. Default: `cws:org`, else CWS_ORG. */
  org?: pulumi.Input<string>;
  /** API token (kept as a secret). Default: `cws:apiToken`, else CWS_API_TOKEN. */
  apiToken?: pulumi.Input<string>;
  /**
   * The most API requests a second the provider sends, all its operations together. Default:
   * `cws:maxRequestsPerSecond`, else CWS_MAX_REQUESTS_PER_SECOND, else no cap (it slows down when
   * the service answers 429).
   */
  maxRequestsPerSecond?: pulumi.Input<number>;
}

/** An explicit cws provider (`pulumi:providers:cws`), e.g. for a second org or service. */
export class Provider extends pulumi.ProviderResource {
  constructor(name: string, args: ProviderArgs = {}, opts?: pulumi.ResourceOptions) {
    const props = {
      ...args,
      apiToken: args.apiToken === undefined ? undefined : pulumi.secret(args.apiToken),
    };
    super("cws", name, props, opts);
  }
}
