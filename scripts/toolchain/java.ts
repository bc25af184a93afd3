/**
 * What Java programs need, built offline from the package registries:
 *
 * - the Java language host `pulumi-language-java`, built from the Go module proxy through the
 *   wrapper module tools/pulumi-java and cached beside the Pulumi CLI (keyed by its release);
 * - the Java SDK, generated from schema.json by Pulumi's own Java generator (`pulumi package
 *   gen-sdk --language java`, which runs in that host) into sdk/java, with a pom.xml of ours;
 * - the SDK built by Maven into a jar and published into a Maven repository directory
 *   (sdk/maven for programs in this checkout; `npm run pack-sdks` publishes into dist/ too);
 * - the Maven dependencies and plugins of the Java example (examples/java-rental), so the first
 *   `pulumi up` does not wait on downloads.
 *
 * `npm run java:setup` runs these steps (scripts/toolchain/cli.ts).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { offlineEnv } from "../offline-stack.ts";
import { REPO_ROOT } from "../repo-root.ts";
import { onPath, run } from "../run.ts";
import { ensureCachedBuild, requiredVersion } from "./go-build.ts";
import { SCHEMA, SDK_DIR, schemaVersion } from "./languages.ts";
import { logTo, seconds, type Log } from "./log.ts";
import { ensurePulumi, pulumiRoot } from "./pulumi.ts";

const WRAPPER_DIR = join(REPO_ROOT, "tools", "pulumi-java");
const HOST_PACKAGE = "github.com/pulumi/pulumi-java/pkg/cmd/pulumi-language-java";
const HOST_VERSION_VAR = "github.com/pulumi/pulumi-java/pkg/version.Version";
export const JAVA_SDK_DIR = join(SDK_DIR, "java");
/** The Maven repository (a directory) the checkout's Java programs get the SDK from. */
export const CHECKOUT_MAVEN_REPO = join(SDK_DIR, "maven");
export const JAVA_EXAMPLE = join(REPO_ROOT, "examples", "java-rental");
/** Maven coordinates of the generated SDK: Pulumi's convention for provider SDKs (package com.pulumi.cws). */
export const JAVA_GROUP = "com.pulumi";
export const JAVA_ARTIFACT = "cws";

const defaultLog = logTo("java");

/** The pulumi-java release tools/pulumi-java/go.mod pins; `com.pulumi:pulumi` is taken at the same version. */
export function javaHostVersion(): string {
  return requiredVersion(WRAPPER_DIR, "github.com/pulumi/pulumi-java/pkg");
}

/**
 * The Java language host beside the CLI (`<root>/bin/pulumi-language-java`), built through
 * tools/pulumi-java when missing or of another release.
 */
export function ensureJavaHost(log: Log = defaultLog): Promise<string> {
  const version = javaHostVersion();
  return ensureCachedBuild(
    {
      what: "pulumi-language-java",
      version,
      pkg: HOST_PACKAGE,
      moduleDir: WRAPPER_DIR,
      ldflags: `-s -w -X ${HOST_VERSION_VAR}=${version}`,
    },
    join(pulumiRoot(), "bin", "pulumi-language-java"),
    log,
  );
}

function requireTool(name: string, why: string): void {
  if (!onPath(name))
    throw new Error(`\`${name}\` is not on PATH: ${why} (scripts/setup-tests.sh installs it)`);
}

/** Maven's own plugins at versions that know `maven.compiler.release` (Maven 3.8's defaults do not). */
const MAVEN_BUILD_PLUGINS = [
  ["maven-compiler-plugin", "3.13.0"],
  ["maven-resources-plugin", "3.3.1"],
  ["maven-jar-plugin", "3.4.2"],
  ["maven-install-plugin", "3.1.3"],
  ["maven-deploy-plugin", "3.1.3"],
]
  .map(
    ([artifact, version]) => `      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>${artifact}</artifactId>
        <version>${version}</version>
      </plugin>`,
  )
  .join("\n");

/** A Maven dependency, `group:artifact:version`. */
export type MavenDependency = string;

/** The dependencies the generator's Gradle build names, with Pulumi's Java SDK at the host's release. */
export function gradleDependencies(buildGradle: string): MavenDependency[] {
  const deps = [...buildGradle.matchAll(/implementation\("([^":]+):([^":]+):([^"]+)"\)/g)].map(
    ([, group, artifact, version]) =>
      group === "com.pulumi" && artifact === "pulumi"
        ? `${group}:${artifact}:${javaHostVersion()}`
        : `${group}:${artifact}:${version}`,
  );
  if (!deps.some((d) => d.startsWith("com.pulumi:pulumi:")))
    throw new Error("the generated build.gradle does not depend on com.pulumi:pulumi");
  return deps;
}

/** The pom.xml of the generated SDK: the jar Maven builds, with the dependencies the generator names. */
export function sdkPom(version: string, dependencies: MavenDependency[]): string {
  const deps = dependencies
    .map((d) => {
      const [groupId, artifactId, v] = d.split(":");
      return `    <dependency>
      <groupId>${groupId}</groupId>
      <artifactId>${artifactId}</artifactId>
      <version>${v}</version>
    </dependency>`;
    })
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by scripts/toolchain/java.ts next to the SDK that pulumi-language-java generates from schema.json. -->
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>${JAVA_GROUP}</groupId>
  <artifactId>${JAVA_ARTIFACT}</artifactId>
  <version>${version}</version>
  <packaging>jar</packaging>
  <name>cws</name>
  <description>Pulumi SDK of the Compute Workload Service provider (cws), generated from schema.json</description>
  <licenses><license><name>Apache-2.0</name></license></licenses>

  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>11</maven.compiler.release>
  </properties>

  <dependencies>
${deps}
  </dependencies>

  <build>
    <plugins>
${MAVEN_BUILD_PLUGINS}
    </plugins>
  </build>
</project>
`;
}

/**
 * What the generator's Gradle build would put beside the classes: the version the SDK reports,
 * and plugin.json, by which Pulumi's Java runtime tells the engine which plugin the SDK needs.
 */
export function writeSdkResources(sdkDir: string, version: string, server?: string): void {
  const dir = join(sdkDir, "src", "main", "resources", ...JAVA_GROUP.split("."), JAVA_ARTIFACT);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "version.txt"), version);
  writeFileSync(
    join(dir, "plugin.json"),
    `${JSON.stringify({ resource: true, name: "cws", version, ...(server ? { server } : {}) }, null, 2)}\n`,
  );
}

/** Maven in batch mode, quiet unless it fails. */
export function mvn(args: string[], cwd: string): Promise<string> {
  return run("mvn", ["-B", "-q", "--no-transfer-progress", ...args], { cwd });
}

/** Where generateJavaSdk reads and writes: schema.json into sdk/java unless told otherwise. */
export interface JavaSdkTarget {
  schema?: string;
  dir?: string;
  /** The plugin's download location, named in plugin.json as `server` (the schema carries it too). */
  pluginDownloadUrl?: string;
}

/** Writes sdk/java from schema.json with `pulumi package gen-sdk --language java`, and its pom.xml. */
export async function generateJavaSdk(log: Log = defaultLog, target: JavaSdkTarget = {}): Promise<void> {
  const { schema = SCHEMA, dir = JAVA_SDK_DIR } = target;
  const root = await ensurePulumi(log);
  await ensureJavaHost(log);
  const started = Date.now();
  const scratch = mkdtempSync(join(tmpdir(), "cws-java-gen-"));
  try {
    const env = {
      ...process.env,
      ...offlineEnv(join(scratch, "backend"), join(scratch, "home")),
    };
    env.PATH = [join(root, "bin"), env.PATH].join(delimiter);
    await run(
      join(root, "bin", "pulumi"),
      ["package", "gen-sdk", schema, "--language", "java", "--out", scratch],
      {
        env,
      },
    );
    // The generator writes a Gradle build; this project builds with Maven: a pom.xml with the
    // same dependencies, and the resources Gradle's genPulumiResources task would write.
    const out = join(scratch, "java");
    const deps = gradleDependencies(readFileSync(join(out, "build.gradle"), "utf8"));
    for (const f of ["build.gradle", "settings.gradle"]) rmSync(join(out, f), { force: true });
    writeFileSync(join(out, "pom.xml"), sdkPom(schemaVersion(), deps));
    writeSdkResources(out, schemaVersion(), target.pluginDownloadUrl);
    rmSync(dir, { recursive: true, force: true });
    cpSync(out, dir, { recursive: true });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  log(
    `generated ${dir === JAVA_SDK_DIR ? "sdk/java" : dir} from ${schema === SCHEMA ? "schema.json" : schema} in ${seconds(started)}`,
  );
}

/**
 * Builds sdk/java into a jar (with sources) and publishes it into the Maven repository directory
 * `repo` (the layout of a remote repository: a pom.xml names it as `file://<repo>`). Returns the jar.
 */
export async function publishJavaSdk(
  repo: string,
  log: Log = defaultLog,
  sdkDir: string = JAVA_SDK_DIR,
): Promise<string> {
  requireTool("mvn", "Maven builds the Java SDK");
  if (!existsSync(join(sdkDir, "pom.xml")))
    throw new Error(`${sdkDir} is not generated: run \`npm run java:setup\``);
  const version = schemaVersion();
  const started = Date.now();
  await mvn(["package", "-DskipTests"], sdkDir);
  const jar = join(sdkDir, "target", `${JAVA_ARTIFACT}-${version}.jar`);
  if (!existsSync(jar)) throw new Error(`Maven did not build ${jar}`);
  await mvn(
    [
      "deploy:deploy-file",
      `-Durl=file://${repo}`,
      "-DrepositoryId=cws-local",
      `-Dfile=${jar}`,
      `-DpomFile=${join(sdkDir, "pom.xml")}`,
    ],
    sdkDir,
  );
  log(`built ${JAVA_GROUP}:${JAVA_ARTIFACT}:${version} and published it into ${repo} in ${seconds(started)}`);
  return jar;
}

/** Downloads the example's dependencies and plugins (Maven's cache keeps them) and compiles it once. */
export async function warmJavaExample(log: Log = defaultLog): Promise<void> {
  const started = Date.now();
  await mvn(
    [`-Dcws.maven.repo=file://${CHECKOUT_MAVEN_REPO}`, "dependency:go-offline", "compile"],
    JAVA_EXAMPLE,
  );
  log(`examples/java-rental resolved and compiled in ${seconds(started)}`);
}
