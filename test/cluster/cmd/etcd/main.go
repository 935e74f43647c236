// Command etcd is etcd's own main (go.etcd.io/etcd/v3 main.go), built here so that it
// compiles against the same module graph as kube-apiserver (k8s.io/kubernetes v1.33
// pins go.etcd.io/etcd/server/v3 v3.5.21).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
