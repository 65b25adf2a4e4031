// Reads the IMDS emulator with AWS's own IMDS client for JavaScript
// (@aws-sdk/ec2-metadata-service), IMDSv2 only, and prints what it read as
// one JSON line for tests/imds/aws_js_test.cc to check.
//   node imds_client.mjs ENDPOINT TAG_KEY
import { MetadataService } from "@aws-sdk/ec2-metadata-service";

const [endpoint, tagKey] = process.argv.slice(2);
const options = { endpoint, ec2MetadataV1Disabled: true, retries: 0, httpOptions: { timeout: 3000 } };
const ms = new MetadataService(options);
const out = {};
out.token = await ms.fetchMetadataToken();
out.document = await ms.request("/latest/dynamic/instance-identity/document", {});
out.rsa2048 = await ms.request("/latest/dynamic/instance-identity/rsa2048", {});
out.instanceId = await ms.request("/latest/meta-data/instance-id", {});
out.tag = await ms.request("/latest/meta-data/tags/instance/" + tagKey, {});
out.tagKeys = await ms.request("/latest/meta-data/tags/instance/", {});
// Without a token (IMDSv1) the emulator, like IMDS with v2 required, says 401.
try {
  await new MetadataService({ endpoint, disableFetchToken: true, retries: 0 }).request(
    "/latest/meta-data/instance-id", {});
  out.withoutToken = "answered";
} catch (e) {
  out.withoutToken = String(e.$metadata?.httpStatusCode ?? e.message);
}
console.log(JSON.stringify(out));
// The SDK keeps its connections alive; do not wait for the server to close them.
process.exit(0);
