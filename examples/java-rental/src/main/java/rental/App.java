package rental;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.core.Output;
import com.pulumi.cws.CwsFunctions;
import com.pulumi.cws.SshKey;
import com.pulumi.cws.SshKeyArgs;
import com.pulumi.cws.Workload;
import com.pulumi.cws.WorkloadArgs;
import com.pulumi.cws.inputs.EnvArgs;
import com.pulumi.cws.inputs.GetRegionsArgs;
import com.pulumi.cws.inputs.PortArgs;
import com.pulumi.cws.outputs.RegionsItem;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A RENTAL workload reachable on port 8080 with a deploy key, and the service's active regions
 * looked up through the provider's getRegions function.
 */
public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    static void stack(Context ctx) {
        var config = ctx.config();
        var image = config.get("image").orElse("nginx:1.27");

        // A lookup: the regions the service has active right now.
        var activeRegions = CwsFunctions.getRegions(GetRegionsArgs.builder().activeOnly(true).build())
            .applyValue(result -> result.regions().stream()
                .map(RegionsItem::uid)
                .sorted()
                .collect(Collectors.toList()));

        var deployKey = new SshKey("deployKey", SshKeyArgs.builder()
            .name("deploy-key")
            .publicKey("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx deploy@cws")
            .build());

        var web = new Workload("web", WorkloadArgs.builder()
            .type("RENTAL")
            .name("web")
            .image(image)
            .resourceName("gpu-rental-small")
            .envs(EnvArgs.builder().name("GREETING").value("hello from java").build())
            .ports(PortArgs.builder().port(8080).build())
            .sshKeys(deployKey.uid().applyValue(List::of))
            .build());

        ctx.export("workloadUid", web.uid());
        ctx.export("status", web.status().applyValue(s -> s.orElse("")));
        ctx.export("costPerHour", web.costPerHour().applyValue(c -> c.orElse(0.0)));
        ctx.export("sshKeyUid", deployKey.uid());
        ctx.export("activeRegions", activeRegions);
    }
}
