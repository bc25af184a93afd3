/** The Java SDK's build: its Maven dependencies, and the versions the example and the docs name. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../scripts/repo-root.ts";
import {
  JAVA_EXAMPLE,
  gradleDependencies,
  javaHostVersion,
  sdkPom,
} from "../../../scripts/toolchain/java.ts";
import { schemaVersion } from "../../../scripts/toolchain/languages.ts";

const GRADLE = `dependencies {
    implementation("com.google.code.findbugs:jsr305:3.0.2")
    implementation("com.google.code.gson:gson:2.8.9")
    implementation("com.pulumi:pulumi:1.0.0")
}`;

/** The version of a `<dependency>` in a pom.xml. */
function pomVersion(pom: string, group: string, artifact: string): string | undefined {
  const m = pom.match(
    new RegExp(
      `<groupId>${group}</groupId>\\s*<artifactId>${artifact}</artifactId>\\s*<version>([^<]+)</version>`,
    ),
  );
  return m?.[1];
}

describe("the Java SDK's Maven build", () => {
  it("takes the generator's dependencies, with Pulumi's Java SDK at the language host's release", () => {
    expect(gradleDependencies(GRADLE)).toEqual([
      "com.google.code.findbugs:jsr305:3.0.2",
      "com.google.code.gson:gson:2.8.9",
      `com.pulumi:pulumi:${javaHostVersion()}`,
    ]);
    const pom = sdkPom("0.1.0", gradleDependencies(GRADLE));
    expect(pomVersion(pom, "com.pulumi", "pulumi")).toBe(javaHostVersion());
    expect(pom).toContain("<artifactId>cws</artifactId>\n  <version>0.1.0</version>");
  });

  it("refuses a generated build that does not depend on Pulumi's Java SDK", () => {
    expect(() => gradleDependencies('implementation("com.google.code.gson:gson:2.8.9")')).toThrow(
      /does not depend on com.pulumi:pulumi/,
    );
  });

  it("the example and docs/packages.md name the SDK's version and the host's Java SDK release", () => {
    const pom = readFileSync(join(JAVA_EXAMPLE, "pom.xml"), "utf8");
    expect(pomVersion(pom, "com.pulumi", "pulumi")).toBe(javaHostVersion());
    expect(pomVersion(pom, "com.pulumi", "cws")).toBe(schemaVersion());
    const docs = readFileSync(join(REPO_ROOT, "docs", "packages.md"), "utf8");
    expect(pomVersion(docs, "com.pulumi", "pulumi")).toBe(javaHostVersion());
    expect(pomVersion(docs, "com.pulumi", "cws")).toBe(schemaVersion());
  });
});
