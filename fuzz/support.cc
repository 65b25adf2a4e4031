#include "support.h"

#include <cstdio>
#include <cstdlib>

namespace carlos::identity::fuzz {

namespace {

PrivateKey Fixed(char b) {
  auto key = PrivateKey::FromSeed(std::string(32, b));
  if (!key.ok()) Fail("making a fixed key: " + key.status().ToString());
  return *key;
}

}  // namespace

const PrivateKey& BoxKey() {
  static const PrivateKey* key = new PrivateKey(Fixed('\x01'));
  return *key;
}

const PrivateKey& EnrollmentKey() {
  static const PrivateKey* key = new PrivateKey(Fixed('\x02'));
  return *key;
}

const char kAwsCertPem[] = R"PEM(-----BEGIN CERTIFICATE-----
MIIDYzCCAkugAwIBAgIUNcVbMU49bW4BytaA+hJWVClnHlMwDQYJKoZIhvcNAQEL
BQAwQDE+MDwGA1UEAww1Y2FybG9zIGZ1enogc3RhbmQtaW4gZm9yIHRoZSBBV1Mg
UlNBLTIwNDggY2VydGlmaWNhdGUwIBcNMjYxMTI5MTkyODQ1WhgPMjEyNjExMDUx
OTI4NDVaMEAxPjA8BgNVBAMMNWNhcmxvcyBmdXp6IHN0YW5kLWluIGZvciB0aGUg
QVdTIFJTQS0yMDQ4IGNlcnRpZmljYXRlMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A
MIIBCgKCAQEAoOCxBJWp6315+h06hYvK/4dLsD/ODPJJnoAUbxYxEv+Hz/UFHKky
dhsK2HHAG7NStzSIX1j7B2vkcix+NZA7wWq4sQ/tuBI1+AZU13GeAO57tlNj3HC8
19Wknl1Jll8cjNjpMs2swFglEaH9ViI+IKphrjJz+xbxyLmyJs3MFlPP0CAhO7Jp
e2miv1uTuaBgxXD1zU2wG3xg7C5GutyNKO33uDyeLIBF4ukTS907zokcGS6nM5+m
kbMrl4Cy/SeGhB4xQuqTndDcgH9A4jB8FN5dpYWaxUGzWu6cd+um3aHyAD+U3NP/
wJc/aGa7u8xH/hmOczKW+R/psY3QaZmlBQIDAQABo1MwUTAdBgNVHQ4EFgQUZO8X
JtW8x6tzTESzCeXJQ+EU67QwHwYDVR0jBBgwFoAUZO8XJtW8x6tzTESzCeXJQ+EU
67QwDwYDVR0TAQH/BAUwAwEB/zANBgkqhkiG9w0BAQsFAAOCAQEAMkpVLpq5Qty+
H1fnmIESHoBBMJrIL0k2Jd+frGlrgkTmHUpCO6rOwpQgmteKDTi6SS2gTwgVddI6
ENpTJbx0VqyU/wWK5qRn+5qoYCXJ9uVW3r2jvPpNxelGW4IItdiRovFplXlDp6/P
TlUegjF5s2tBAYD42+DbwcSV0X0vWBc9xDveG32iqmNJIeFmg3F9h67HyYuWu5t5
6NW/8Uw38Lv/HxShc4ywUCXbpfZVmMDoMcSCvyvemewnGT3BnVxPfVu9U72UWgxM
Z1qS/txlkbwITX79Amh7ZSnWPBHwiFUwZL0tJwmP/ePe6mmtBqVV+ASaqzg85yrN
zwfyXcIMiQ==
-----END CERTIFICATE-----
)PEM";

const char kAwsKeyPem[] = R"PEM(-----BEGIN PRIVATE KEY-----
MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCg4LEElanrfXn6
HTqFi8r/h0uwP84M8kmegBRvFjES/4fP9QUcqTJ2GwrYccAbs1K3NIhfWPsHa+Ry
LH41kDvBarixD+24EjX4BlTXcZ4A7nu2U2PccLzX1aSeXUmWXxyM2OkyzazAWCUR
of1WIj4gqmGuMnP7FvHIubImzcwWU8/QICE7sml7aaK/W5O5oGDFcPXNTbAbfGDs
Lka63I0o7fe4PJ4sgEXi6RNL3TvOiRwZLqczn6aRsyuXgLL9J4aEHjFC6pOd0NyA
f0DiMHwU3l2lhZrFQbNa7px366bdofIAP5Tc0//Alz9oZru7zEf+GY5zMpb5H+mx
jdBpmaUFAgMBAAECggEADzBXliq5MboVh5c13MDviAOSkk/b2N4RNE08YKaUOIp2
nJwyANw6nur7saa/r/3Uu+ZST8o7XR6DIYJw4ga9lYvJZzItS/kwLjwOy453D/h0
Jqkl3vyn36rUkX0WQwO00tlx3vGLM1e/HDSSkgzGl9fuQ/+Qcq7eYgiiOMaqU5ss
wrM/Z2kPHBf04Hrl7fJmLeWyrMWKxjnNmKvaw0le/Eud5D7tJVbNWiRku2sgjMA7
ch/iEVSDhfvRJpnx+IMcAdISrgrpea5ZDQpTho51WMGS7yU2SkM4kZ7sZsaATLFA
GJyHqhVp2WFmMMm+cnp+oXy6nglzeV2FaFTH1iL0SwKBgQDT/6F0hSKikTigCKAR
wXsdVZmMapAm309JLHAnDXkkLjfGvPUkgUKPdp2OM4yXkmW6lUJmtH0cD04bMs+E
NqUBlyzaljGbB/6Ga0bEZG5vg/Kbe17dW4d9vQ677sKBOr3EQrGde93AaUs+8wEH
VdLwP2nEq8bjJ9HoLLbaZuSUXwKBgQDCRMvKfuURcXsXbIm32CZqquhUngpoFWff
HAIVNDL4ihFEk+TNqtRYsXDoAbXH7MBDEfdKcCzJgD/807GihS1ppHkrJQ3jz9Bx
tFlgLP9D+jMeype2q41zNULnenTWUJjN8f2UzRbFHF7S60YV3ZvKzlTtWXJNEtH6
E+b8gnphGwKBgBIFYfEovBf7pkecVBcOTmvg8euIx3Y2d2Pt/h6ju4+CykT/nQsc
Xc8aMyx6X1InJLSmqX1XjGcNOgN/3zoK9x3afvqZ19+o308H4X0iWGzsV3w2EYtZ
k3vxzUXWdvxLRQRg8v5DIEeR686PE6BPAF5h1ZjdTUvT/7jvzB9mrbmbAoGAGPJ8
uSRShkrsY7Wsec9oH4qTC0rAS110WVJfchmh8gjI7uWPHFozqrAer6yIi4P7rKFC
AG0nUzkE/pKw3Q39JvPYG5JGllq5ieB/GbqtjS00I2Ag23RsVb8hOFihaGQxO0E4
L0OnCOj7xFoyRdyPhRu6DEDQTNV94X9sykB3NsECgYB4vCYqn9BQkXKUa8/FTiDe
wO92wrUI8O+KPQ6YLVLVO4zx9N56EtJA02qJaDy95arfp3v66MbEBcL8wU9NbdDz
aqK9lMXRzrQYRNz4h+NgvUf5aD/JAIPJOO97xPiNOMIyWjC2Aq4T+x4kepNqHYAN
Gy1pUHXYmtQV/dc4zuTZtQ==
-----END PRIVATE KEY-----
)PEM";

std::string SampleIid() {
  return "{\n"
         "  \"accountId\" : \"123456789012\",\n"
         "  \"architecture\" : \"x86_64\",\n"
         "  \"availabilityZone\" : \"us-west-2a\",\n"
         "  \"billingProducts\" : null,\n"
         "  \"imageId\" : \"ami-0123456789abcdef0\",\n"
         "  \"instanceId\" : \"i-0123456789abcdef0\",\n"
         "  \"instanceType\" : \"t3.micro\",\n"
         "  \"pendingTime\" : \"2026-11-29T17:58:03Z\",\n"
         "  \"privateIp\" : \"10.0.1.23\",\n"
         "  \"region\" : \"us-west-2\",\n"
         "  \"version\" : \"2017-09-30\"\n"
         "}";
}

void Fail(std::string_view what) {
  std::fprintf(stderr, "fuzz property broken: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

}  // namespace carlos::identity::fuzz
