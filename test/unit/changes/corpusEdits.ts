/** Objects the `changes` tests add to a corpus copy and edit between the base and the working tree. */

/** A Deployment running podinfo at `tag`, with one env var unless `env` is false. */
export const worker = (tag: string, env = true) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: worker
spec:
  selector:
    matchLabels: {app: worker}
  template:
    metadata:
      labels: {app: worker}
    spec:
      containers:
        - name: worker
          image: ghcr.io/stefanprodan/podinfo:${tag}
${env ? '          env:\n            - {name: A, value: "1"}\n' : ''}`;
