"""Demo instance variables: a realistic mix of masked, protected, file-typed and raw ones."""

from __future__ import annotations

from sqlalchemy.orm import Session

from outpost_server.variables import service

DEMO_VARIABLES = (
    # key, value, variable_type, protected, masked, raw, description
    ("DOCKER_REGISTRY", "registry.acme.example:5000", "env_var", False, False, False,
     "Internal container registry used by every build"),
    ("DOCKER_AUTH_TOKEN", "dckr_pat_7Qm2xV9sLk4RtW8nJ3bY", "env_var", True, True, False,
     "Push token for the internal registry"),
    ("SONAR_HOST_URL", "https://sonar.acme.example", "env_var", False, False, False, None),
    ("SONAR_TOKEN", "squ_4f9a1c7e2b8d6053ae91c4f7", "env_var", True, True, False, "SonarQube analysis token"),
    ("NPM_REGISTRY_TOKEN", "npm_Xy8Kp2Lq9Wd4Rt7Vb3Nm6Ja1Hs5Fg0Ce", "env_var", False, True, False, None),
    ("DEPLOY_SSH_KEY", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
     "-----END OPENSSH PRIVATE KEY-----\n", "file", True, False, False, "Key the deploy jobs use for production hosts"),
    ("KUBECONFIG_STAGING", "apiVersion: v1\nkind: Config\nclusters:\n- name: staging\n  cluster:\n"
     "    server: https://k8s.staging.acme.example\n", "file", False, False, True, "Staging cluster access"),
    ("SENTRY_AUTH_TOKEN", "sntrys_$eyJpYXQiOjE3MDA6$rL0x!", "env_var", True, True, True,
     "Release uploads; contains '$' so it is not expanded"),
    ("LOG_FORMAT", "json", "env_var", False, False, False, None),
    ("PIP_INDEX_URL", "https://pypi.acme.example/simple/$PIP_CHANNEL", "env_var", False, False, True,
     "Kept literal: $PIP_CHANNEL is resolved by the pip wrapper"),
    ("RELEASE_CHANNEL", "stable", "env_var", True, False, False, "Only protected branches publish releases"),
)


def seed(session: Session, demo) -> None:
    for key, value, variable_type, protected, masked, raw, description in DEMO_VARIABLES:
        service.create_variable(session, secret_key=demo.secret_key, key=key, value=value,
                                variable_type=variable_type, protected=protected, masked=masked, raw=raw,
                                description=description, limit=0)
